import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The request a redirect leads to, sent to the URL its `Location` names, resolved against
    /// the redirected URL as RFC 3986 says, with the credentials it may carry; `nil`, so that the
    /// redirect is not followed, when that is not an `http` or `https` URL (see
    /// ``Origin/isRedirectTarget(_:)``). A `Location` that `URL` cannot parse (a space in it, on
    /// older Apple systems) leaves the session's own choice of URL, checked the same way.
    ///
    /// Linux's URLSession reads a `Location` without a host (`file:///etc/passwd`, `data:,x`, or
    /// `page` from `/a/b`) as a path from the root of the redirected URL's origin, which no
    /// client should request.
    ///
    /// - Parameters:
    ///   - response: The redirect's response.
    ///   - previous: The request that was redirected.
    /// - Returns: The request to send next, or `nil`.
    package func following(_ response: HTTPURLResponse, from previous: URLRequest) -> URLRequest? {
        guard let from = response.url ?? previous.url else { return nil }
        let location = response.value(forHTTPHeaderField: "Location")
        guard RedirectPolicy.isFollowed(response.statusCode),
            let target = location.flatMap({ URL(string: $0, relativeTo: from)?.absoluteURL }) ?? url,
            Origin.isRedirectTarget(target)
        else { return nil }
        var request = self
        request.url = target
        let method = HTTPMethod(rawValue: previous.httpMethod ?? "GET")
        let after = RedirectPolicy.method(after: response.statusCode, of: method)
        request.httpMethod = after.method.rawValue
        if !after.keepsBody {
            request.httpBody = nil
        }
        return request.carryingCredentials(of: previous, redirectedFrom: from)
    }

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
        guard let origin, let url, RedirectPolicy.keepsCredentials(from: origin, to: url) else {
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
