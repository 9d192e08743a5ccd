import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The fields that carry credentials for one origin.
    private static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request a redirect from `origin` leads to, with the credentials of `previous` (the
    /// request that was redirected) if it stays on that origin (scheme, host and port), and
    /// without any if it leaves it.
    ///
    /// Linux's URLSession would send the credentials to whatever host the `Location` names;
    /// Apple's drops `Authorization` on every redirect, even to the same origin. Both now behave
    /// as the NIO transport does.
    package func carryingCredentials(of previous: URLRequest, redirectedFrom origin: URL?) -> URLRequest {
        var request = self
        guard let origin, let url, Self.isSameOrigin(origin, url) else {
            for name in Self.credentialFields {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            return request
        }
        for name in ["Authorization", "Proxy-Authorization"] where value(forHTTPHeaderField: name) == nil {
            request.setValue(previous.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
        }
        return request
    }

    /// Whether two URLs have the same origin: scheme, host and port, the default port counted.
    package static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
