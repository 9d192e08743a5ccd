import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    extension URLRequest {
        /// The header fields that carry credentials for the origin they were meant for.
        private static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

        /// This request, which a redirect from `origin` leads to, without the fields that must not
        /// follow it: the credentials meant for `origin`, when it goes to another origin (see
        /// ``droppingCredentials(redirectedFrom:)``), and a body's fields, when it is a `GET` or
        /// `HEAD` (see ``droppingBodyFieldsWithoutABody()``).
        ///
        /// - Parameter origin: The URL that answered with the redirect.
        /// - Returns: The request to send, or to give your session's delegate.
        func strippedForRedirect(from origin: URL?) -> URLRequest {
            droppingCredentials(redirectedFrom: origin).droppingBodyFieldsWithoutABody()
        }

        /// This request, which a redirect from `origin` leads to, without the credential header
        /// fields (`Authorization`, `Cookie`, `Proxy-Authorization`) it carried over, when it goes to
        /// another origin (scheme, host and port).
        ///
        /// Linux's URLSession copies every header field of a request into the request that a redirect
        /// leads to, wherever it goes: a token meant for one service would reach whatever host the
        /// `Location` names (a storage service's signed URL, say, which then also refuses the
        /// request). `AsyncHTTPClientTransport` drops the same three fields.
        ///
        /// - Parameter origin: The URL that answered with the redirect.
        /// - Returns: The request to send.
        private func droppingCredentials(redirectedFrom origin: URL?) -> URLRequest {
            guard let origin, let url, !Self.isSameOrigin(origin, url) else { return self }
            var request = self
            for name in Self.credentialHeaders {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            return request
        }

        /// This request, which a redirect leads to, without `Content-Type` and `Content-Length` when
        /// it is a `GET` or `HEAD`, which has no body: a `POST` redirected by a 301, 302 or 303.
        ///
        /// Linux's URLSession turns such a request into a `GET` and leaves out its body, but sends
        /// the body's `Content-Type` on. `AsyncHTTPClientTransport` drops both fields.
        ///
        /// - Returns: The request to send.
        private func droppingBodyFieldsWithoutABody() -> URLRequest {
            guard httpMethod == "GET" || httpMethod == "HEAD" else { return self }
            var request = self
            request.setValue(nil, forHTTPHeaderField: "Content-Type")
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
            return request
        }

        /// This request, which a redirect leads to, with the `Cookie` field that `session`'s cookie
        /// storage gives its URL, as Linux's URLSession sets it when it follows a redirect itself.
        ///
        /// Linux's URLSession (swift-corelibs-foundation 6.3.1) sets a request's cookies when the
        /// task is made, and again on each redirect it follows on its own; on a redirect that a
        /// delegate decides about, and every task of ``URLSessionTransport`` has one, it sends the
        /// request the delegate returns as it is. A cookie that the redirect's own response set (a
        /// sign-in that redirects to the signed-in page) would then be missing from the next
        /// request. As the session would, this replaces any `Cookie` field when the storage has
        /// cookies for the URL, and does nothing when the configuration's `httpShouldSetCookies`
        /// is off or it has no cookie storage.
        ///
        /// - Parameter session: The session that follows the redirect.
        /// - Returns: The request to send.
        func settingCookies(of session: URLSession) -> URLRequest {
            let configuration = session.configuration
            guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage, let url,
                let cookies = storage.cookies(for: url),
                let value = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"], !value.isEmpty
            else { return self }
            var request = self
            request.setValue(value, forHTTPHeaderField: "Cookie")
            return request
        }

        /// Whether two URLs have the same origin: scheme, host and port.
        static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
            lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
                && effectivePort(lhs) == effectivePort(rhs)
        }

        private static func effectivePort(_ url: URL) -> Int? {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        }
    }
#endif
