import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore
import NIOHTTPCompression
import NIOPosix
import Testing

@testable import KiloAsyncHTTPClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `URLError` codes that client and SwiftNIO errors become, without a network.
@Suite struct TransportFailureTests {
    private let url = URL(string: "http://127.0.0.1:9/x")!

    @Test(arguments: [
        (HTTPClientError.cancelled, URLError.Code.cancelled), (.requestStreamCancelled, .cancelled),
        (.readTimeout, .timedOut), (.writeTimeout, .timedOut), (.connectTimeout, .timedOut),
        (.deadlineExceeded, .timedOut), (.tlsHandshakeTimeout, .timedOut), (.getConnectionFromPoolTimeout, .timedOut),
        (.remoteConnectionClosed, .networkConnectionLost), (.uncleanShutdown, .networkConnectionLost),
        (.invalidURL, .badURL), (.emptyHost, .badURL), (.contentLengthMissing, .badServerResponse),
        (.redirectLimitReached, .httpTooManyRedirects), (.alreadyShutdown, .unknown),
    ])
    func clientErrors(error: HTTPClientError, code: URLError.Code) {
        #expect(TransportFailure.code(for: error) == code)
    }

    @Test(arguments: [
        (ECONNREFUSED, URLError.Code.cannotConnectToHost), (EHOSTUNREACH, .cannotConnectToHost),
        (ENETUNREACH, .cannotConnectToHost), (ECONNRESET, .networkConnectionLost), (EPIPE, .networkConnectionLost),
        (ETIMEDOUT, .timedOut), (ENOMEM, .unknown),
    ])
    func socketErrors(errno: Int32, code: URLError.Code) {
        #expect(TransportFailure.code(for: IOError(errnoCode: errno, reason: "connect")) == code)
    }

    @Test func channelAndNameErrors() {
        #expect(TransportFailure.code(for: ChannelError.eof) == .networkConnectionLost)
        #expect(TransportFailure.code(for: ChannelError.connectTimeout(.seconds(1))) == .timedOut)
        #expect(TransportFailure.code(for: CancellationError()) == .cancelled)
        #expect(TransportFailure.code(for: CocoaError(.coderReadCorrupt)) == .unknown)
    }

    @Test func bodiesThatDoNotDecompressAreCannotDecodeContentData() {
        #expect(
            TransportFailure.code(for: NIOHTTPDecompression.DecompressionError.inflationError(-3))
                == .cannotDecodeContentData
        )
        #expect(
            TransportFailure.code(for: NIOHTTPDecompression.ExtraDecompressionError.truncatedData)
                == .cannotDecodeContentData
        )
        #expect(
            TransportFailure.code(for: NIOHTTPDecompression.ExtraDecompressionError.invalidTrailingData)
                == .cannotDecodeContentData
        )
    }

    @Test func theOriginalErrorAndURLAreKept() throws {
        let error = try #require(
            TransportFailure.error(for: HTTPClientError.readTimeout, url: url, isCancelled: false) as? URLError
        )
        #expect(error.code == .timedOut)
        #expect(error.failingURL == url)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain.contains("HTTPClientError"))
        #expect(error.localizedDescription.hasPrefix("The request timed out."))
    }

    @Test func aCancelledTaskAlwaysGivesCancelled() throws {
        let mapped = TransportFailure.error(for: HTTPClientError.remoteConnectionClosed, url: url, isCancelled: true)
        #expect((mapped as? URLError)?.code == .cancelled)
        let timedOut = TransportFailure.error(for: URLError(.timedOut), url: url, isCancelled: true)
        #expect((timedOut as? URLError)?.code == .cancelled)
    }

    @Test func requestAndFileSystemErrorsPassThrough() {
        let invalid = TransportFailure.error(for: RequestError.invalidHeaderName("a b"), url: url, isCancelled: false)
        #expect(invalid as? RequestError == .invalidHeaderName("a b"))
        let file = TransportFailure.error(
            for: LocalFileError(underlying: CocoaError(.fileWriteNoPermission)),
            url: url,
            isCancelled: false
        )
        #expect((file as? CocoaError)?.code == .fileWriteNoPermission)
        let urlError = TransportFailure.error(for: URLError(.fileDoesNotExist), url: url, isCancelled: false)
        #expect((urlError as? URLError)?.code == .fileDoesNotExist)
    }
}
