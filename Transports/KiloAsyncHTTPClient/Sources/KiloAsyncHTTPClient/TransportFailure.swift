import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns the errors of `HTTPClient` and SwiftNIO into the `URLError`s that `URLSession` gives for
/// the same failures, so callers and ``RetryPolicy`` see one set of codes whatever the transport.
enum TransportFailure {
    /// The error to throw for a failed request.
    ///
    /// `URLError`, ``RequestError`` and the file system's errors (``LocalFileError``) pass through;
    /// anything else becomes a `URLError` whose `NSUnderlyingErrorKey` is the original error.
    ///
    /// - Parameters:
    ///   - error: What the request threw.
    ///   - url: The request's URL, kept as the error's failing URL.
    ///   - isCancelled: Whether the calling task was cancelled; the error is then `.cancelled`.
    /// - Returns: The error.
    static func error(for error: any Error, url: URL, isCancelled: Bool) -> any Error {
        switch error {
        case let error as LocalFileError:
            return error.underlying
        case let error as URLError:
            return isCancelled ? URLError(.cancelled, userInfo: error.userInfo) : error
        case is RequestError:
            return error
        default:
            let code = isCancelled ? .cancelled : Self.code(for: error)
            return URLError(
                code,
                userInfo: [
                    NSUnderlyingErrorKey: error as NSError,
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "\(describe(code)) (\(error))",
                ]
            )
        }
    }

    /// Whether an error means that the request was cancelled, by its task or by an idle timeout.
    ///
    /// - Parameter error: The error.
    /// - Returns: `true` for the errors that cancellation produces.
    static func isCancellation(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError:
            return true
        case let error as HTTPClientError:
            return error == .cancelled || error == .requestStreamCancelled
        case let error as URLError:
            return error.code == .cancelled
        default:
            return false
        }
    }

    /// The `URLError` code for a client or SwiftNIO error.
    ///
    /// - Parameter error: The error.
    /// - Returns: The code `URLSession` gives for the same failure; `.unknown` when there is none.
    static func code(for error: any Error) -> URLError.Code {
        switch error {
        case is CancellationError:
            return .cancelled
        case let error as HTTPClientError:
            return code(for: error)
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first {
                return code(for: failure.error)
            }
            return error.dnsAError != nil || error.dnsAAAAError != nil ? .cannotFindHost : .cannotConnectToHost
        case let error as IOError:
            return code(forErrno: error.errnoCode)
        case is SocketAddressError.UnknownHost:
            return .cannotFindHost
        case is SocketAddressError:
            return .badURL
        case let error as ChannelError:
            return code(for: error)
        case let error as NIOSSLError:
            return code(for: error)
        #if canImport(Network)
            case let error as HTTPClient.NWPOSIXError:
                // Network.framework's errors, on Apple platforms: the same codes as NIO's own.
                return code(forErrno: error.errorCode.rawValue)
            case let error as HTTPClient.NWTLSError:
                return code(forTLSStatus: error.status)
        #endif
        case is NIOSSLExtraError, is BoringSSLError:
            return .secureConnectionFailed
        case let error as HTTPParserError:
            // The connection closed before the end of the response.
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError,
            is UndecodedContentCoding:
            // A body that does not decompress, or whose compressed data ends early or has bytes
            // after its end, or that would be handed over with a coding still on it.
            return .cannotDecodeContentData
        default:
            return .unknown
        }
    }

    private static func code(for error: HTTPClientError) -> URLError.Code {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return .cancelled
        case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .timedOut
        case .remoteConnectionClosed, .uncleanShutdown:
            return .networkConnectionLost
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return .badURL
        case .identityCodingIncorrectlyPresent, .contentLengthMissing, .invalidProxyResponse:
            return .badServerResponse
        case .redirectLimitReached, .redirectCycleDetected:
            return .httpTooManyRedirects
        case .proxyAuthenticationRequired:
            return .userAuthenticationRequired
        default:
            return .unknown
        }
    }

    private static func code(for error: ChannelError) -> URLError.Code {
        switch error {
        case .connectTimeout:
            return .timedOut
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof:
            return .networkConnectionLost
        case .writeHostUnreachable:
            return .cannotConnectToHost
        default:
            return .unknown
        }
    }

    #if canImport(Network)
        /// The code for a Network.framework TLS status (`<Security/SecureTransport.h>`): a
        /// certificate that is not trusted, or any other TLS failure.
        private static func code(forTLSStatus status: OSStatus) -> URLError.Code {
            // errSSLXCertChainInvalid, errSSLBadCert, errSSLUnknownRootCert, errSSLNoRootCert,
            // errSSLCertExpired, errSSLCertNotYetValid, errSSLHostNameMismatch
            let untrusted: Set<OSStatus> = [-9807, -9808, -9812, -9813, -9814, -9815, -9843]
            return untrusted.contains(status) ? .serverCertificateUntrusted : .secureConnectionFailed
        }
    #endif

    private static func code(for error: NIOSSLError) -> URLError.Code {
        switch error {
        case .handshakeFailed(let reason) where String(describing: reason).contains("CERTIFICATE_VERIFY_FAILED"):
            return .serverCertificateUntrusted
        case .uncleanShutdown:
            return .networkConnectionLost
        default:
            return .secureConnectionFailed
        }
    }

    private static func code(forErrno errno: CInt) -> URLError.Code {
        switch errno {
        case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EHOSTDOWN, EADDRNOTAVAIL:
            return .cannotConnectToHost
        case ECONNRESET, ECONNABORTED, EPIPE, ENOTCONN:
            return .networkConnectionLost
        case ETIMEDOUT:
            return .timedOut
        default:
            return .unknown
        }
    }

    /// A sentence for an error code, as Apple's `URLSession` words it.
    ///
    /// - Parameter code: The code.
    /// - Returns: The sentence.
    static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .cancelled: return "cancelled"
        case .timedOut: return "The request timed out."
        case .cannotConnectToHost: return "Could not connect to the server."
        case .cannotFindHost: return "A server with the specified hostname could not be found."
        case .networkConnectionLost: return "The network connection was lost."
        case .badServerResponse: return "The server returned a bad response."
        case .serverCertificateUntrusted: return "The certificate for this server is invalid."
        case .secureConnectionFailed:
            return "An SSL error has occurred and a secure connection to the server cannot be made."
        case .httpTooManyRedirects: return "Too many HTTP redirects."
        case .cannotDecodeContentData: return "The response body could not be decoded."
        case .badURL: return "The URL is not valid."
        case .fileDoesNotExist: return "The file does not exist."
        default: return "The request failed."
        }
    }
}

/// An error of the file system's while streaming a body from or to a local file, which the
/// transport throws unchanged (as ``URLSessionTransport`` does) rather than as a `URLError`.
struct LocalFileError: Error {
    /// The file system's error.
    var underlying: any Error
}
