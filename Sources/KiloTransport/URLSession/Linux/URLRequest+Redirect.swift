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
