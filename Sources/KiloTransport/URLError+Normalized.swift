import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError {
    /// The error with the code Apple's URLSession gives for the same failure.
    ///
    /// On Linux, URLSession (libcurl underneath) reports some failures with generic codes that
    /// callers cannot act on: a connection closed mid-body is `.unknown` ("transfer closed with
    /// N bytes remaining to read"), one closed before any response is `.badServerResponse`
    /// ("Empty reply from server"), and a certificate that fails validation is `.unknown`
    /// ("SSL certificate problem: …"). libcurl's message is the only thing that tells them
    /// apart, so this reads it; the original error stays as the underlying error.
    func normalized() -> URLError {
        #if canImport(FoundationNetworking)
            let message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
            let code: URLError.Code
            switch self.code {
            case .unknown where message.hasPrefix("transfer closed"),
                .badServerResponse where message == "Empty reply from server":
                code = .networkConnectionLost
            case .unknown where message == "Failed writing header":
                code = .cannotParseResponse  // a header field Linux's URLSession cannot take in
            case .unknown where message.hasPrefix("SSL certificate problem"):
                code = .serverCertificateUntrusted
            case .unknown where message.hasPrefix("SSL") || message.contains("TLS"):
                code = .secureConnectionFailed
            default:
                return self
            }
            var info = userInfo
            info[NSUnderlyingErrorKey] = self as NSError
            return URLError(code, userInfo: info)
        #else
            return self
        #endif
    }
}
