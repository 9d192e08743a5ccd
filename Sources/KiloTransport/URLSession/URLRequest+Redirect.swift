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
    /// `nil`, so that the redirect is not followed, when its URL's user and password cannot be
    /// taken off.
    ///
    /// Linux's URLSession would send the credentials to whatever host the `Location` names, and
    /// resolves a `//host/path` location against a URL with user info into one that keeps it,
    /// which libcurl then sends to that host as Basic authentication; Apple's drops
    /// `Authorization` on every redirect, even to the same origin. Both now behave as the NIO
    /// transport does.
    package func carryingCredentials(of previous: URLRequest, redirectedFrom origin: URL?) -> URLRequest? {
        var request = self
        guard let origin, let url, Self.isSameOrigin(origin, url) else {
            for name in Self.credentialFields {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            if let url {
                guard let cleared = Self.withoutUserInfo(url) else { return nil }
                request.url = cleared
            }
            return request
        }
        for name in ["Authorization", "Proxy-Authorization"] where value(forHTTPHeaderField: name) == nil {
            request.setValue(previous.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
        }
        return request
    }

    /// Whether two URLs have the same origin: scheme, host and port, the default port counted.
    ///
    /// Hosts are compared as sent, percent-encoded: `URL.host` is `nil` for one that does not
    /// decode (`%FF`), and two such hosts are not one origin. A URL without a host has none.
    package static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let left = URLComponents(url: lhs, resolvingAgainstBaseURL: true),
            let right = URLComponents(url: rhs, resolvingAgainstBaseURL: true),
            let host = left.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return false }
        return host == right.percentEncodedHost?.lowercased() && left.scheme?.lowercased() == right.scheme?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    /// `url` without its user and password, or `nil` if they cannot be taken off.
    ///
    /// Checked as sent, percent-encoded: `url.user` is `nil` for a user such as `%FF` that does
    /// not decode as UTF-8, and libcurl would still send it.
    private static func withoutUserInfo(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        guard components.percentEncodedUser != nil || components.percentEncodedPassword != nil else { return url }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
