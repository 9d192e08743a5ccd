import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The fields that carry credentials for one origin.
    private static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request a redirect from `origin` leads to, with the credentials of `previous` (the
    /// request that was redirected) if it stays on that origin (scheme, host and port), and
    /// without any if it leaves it: no credential fields, and no user or password in its URL.
    ///
    /// Linux's URLSession would send the credentials to whatever host the `Location` names, and
    /// resolves a `//host/path` location against a URL with user info into one that keeps it,
    /// which libcurl then sends to that host as Basic authentication; Apple's drops
    /// `Authorization` on every redirect, even to the same origin. Both now behave as the NIO
    /// transport does.
    package func carryingCredentials(of previous: URLRequest, redirectedFrom origin: URL?) -> URLRequest {
        var request = self
        guard let origin, let url, Self.isSameOrigin(origin, url) else {
            for name in Self.credentialFields {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            request.url = url.map(Self.withoutUserInfo)
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

    /// `url` without its user and password, or `url` itself when it has none.
    ///
    /// Components parsed from a URL always form one again once only the user and password are
    /// removed; `url` is kept only if they could not be parsed, which a URL's own string always
    /// can.
    private static func withoutUserInfo(_ url: URL) -> URL {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
