import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: failures reported with codes a caller cannot act on.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1, with Debian 12's libcurl 7.88):
    // URLSession reports some failures with generic codes: a connection closed mid-body is `.unknown` ("transfer closed with
    // N bytes remaining to read"), one closed before any response is `.badServerResponse`
    // ("Empty reply from server"), one closed while the request body is still being sent is
    // `.unknown` ("Send failure: Broken pipe"), and a certificate that fails validation is
    // `.unknown` ("SSL certificate problem: …"). Over TLS, a connection reset is `.unknown` too
    // ("Recv failure: Connection reset by peer", which plain HTTP reports as
    // `.networkConnectionLost`), and so is every other failed handshake ("OpenSSL/3.0.19:
    // error:…: wrong version number" from a server that does not speak TLS, "OpenSSL
    // SSL_connect: SSL_ERROR_SYSCALL …" from one that closes the connection, a TLS alert). A
    // response that breaks HTTP is `.unknown` (a bad chunk size, `Content-Length` or header
    // or trailer line, too many header bytes), or even `.unsupportedURL`
    // (a bad status line, or no status line at all, as from a server that does not speak
    // HTTP), as if the URL were at fault; it becomes `.badServerResponse`. A body that does not
    // decompress (or has bytes after its compressed data, a second gzip member among them:
    // "Failed writing received data to disk/application"), or is in a `Content-Encoding`
    // libcurl does not know, becomes
    // `.cannotDecodeContentData` (`AsyncHTTPClientTransport` reports the first so, and hands
    // the second over as sent). libcurl's message is the only thing that tells them apart, so
    // this reads it; the original error stays as the underlying error.
    // Tests: FaultTests, TLSTests and InterruptedFileUploadTests in the integration suite (each
    // failure above, from the fault server).
    // Remove when corelibs maps libcurl's errors to the codes Apple's URLSession gives.
    extension URLError {
        /// The error with the code libcurl's message means, or itself when the message means
        /// nothing more than its code.
        func readingLibcurlMessage() -> URLError {
            let message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
            let code: URLError.Code
            switch self.code {
            // "Recv failure": a reset over TLS (over plain HTTP the session says so itself).
            case .unknown
            where message.hasPrefix("transfer closed") || message.hasPrefix("Send failure")
                || message.hasPrefix("Recv failure"),
                .badServerResponse where message == "Empty reply from server":
                code = .networkConnectionLost
            case .unknown where message == "Failed writing header":
                code = .cannotParseResponse  // a header field Linux's URLSession cannot take in
            case .unknown where message.hasPrefix("SSL certificate problem"):
                code = .serverCertificateUntrusted
            case .unknown where message.hasPrefix("SSL") || message.hasPrefix("OpenSSL") || message.contains("TLS"):
                code = .secureConnectionFailed
            case .unknown where Self.malformedResponseMessages.contains { message.contains($0) },
                .unsupportedURL where Self.malformedStatusLineMessages.contains(message):
                code = .badServerResponse
            case .unknown
            where message.hasPrefix("Error while processing content unencoding")
                || message.hasPrefix("Unrecognized content encoding")
                // Bytes after the end of compressed data, a second gzip member say. The message
                // also means that the receiver refused data, which a download task that cannot
                // write its file would; Kilo makes none, and its delegate never refuses data.
                || message.hasPrefix("Failed writing received data"):
                code = .cannotDecodeContentData
            default:
                return self
            }
            var info = userInfo
            info[NSUnderlyingErrorKey] = self as NSError
            return URLError(code, userInfo: info)
        }

        /// Parts of libcurl's messages (7.88) for a response that breaks HTTP's framing or syntax,
        /// which Linux's URLSession reports as `.unknown`.
        private static let malformedResponseMessages = [
            "in chunked-encoding",  // "Illegal or missing hexadecimal sequence in chunked-encoding", …
            "Failed reading the chunked-encoded stream",  // a trailer line without a colon
            "Invalid Content-Length",
            "Header without colon",
            "Too large response headers",
            "Nul byte in header",
            // libcurl 7.88 reports a response header field over its 100 KiB limit so. Kilo keeps
            // what it sends within bounds (request headers, the Cookie field), so here it is the
            // response's.
            "Out of memory",
        ]

        /// libcurl's messages (7.88) for a response whose status line is not HTTP's, which Linux's
        /// URLSession reports as `.unsupportedURL`.
        private static let malformedStatusLineMessages: Set = [
            "Unsupported response code in HTTP response",
            "Unsupported HTTP version in response",
            "Received HTTP/0.9 when not allowed",
        ]
    }
#endif
