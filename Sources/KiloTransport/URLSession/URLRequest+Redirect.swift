import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The request a redirect from `origin` leads to, with the credentials of `previous` (the
    /// request that was redirected) if it stays on that ``Origin``, and without any if it leaves
    /// it: no ``Origin/credentialFields``, and no user or password in its URL. `nil`, so that the
    /// redirect is not followed, when its URL's user and password cannot be taken off.
    ///
    /// Linux's URLSession would send the credentials to whatever host the `Location` names, and
    /// resolves a `//host/path` location against a URL with user info into one that keeps it,
    /// which libcurl then sends to that host as Basic authentication; Apple's drops
    /// `Authorization` on every redirect, even to the same origin. Both now behave as the NIO
    /// transport does.
    package func carryingCredentials(of previous: URLRequest, redirectedFrom origin: URL?) -> URLRequest? {
        var request = self
        guard let origin, let url, Origin(origin)?.contains(url) == true else {
            for name in Origin.credentialFields {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            if let url {
                guard let cleared = Origin.withoutUserInfo(url) else { return nil }
                request.url = cleared
            }
            return request
        }
        for name in ["Authorization", "Proxy-Authorization"] where value(forHTTPHeaderField: name) == nil {
            request.setValue(previous.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
        }
        return request
    }
}
