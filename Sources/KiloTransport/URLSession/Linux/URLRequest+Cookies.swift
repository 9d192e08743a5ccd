import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: the cookies a request and its redirects carry.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): cookies chosen by host alone,
    // set once when a task is made; a caller's own `Cookie` field replaced by stored cookies; a
    // redirect a delegate decides goes without the cookies its own response set.
    // Tests: URLSessionTransport+CookieTests, URLSessionTransport+CookieDefenceTests,
    // SecureCookieTests.
    // Remove when corelibs chooses cookies as RFC 6265 says, on every request and redirect.
    extension URLRequest {
        /// This request with the `Cookie` field that `storage`'s cookies give its URL now, chosen
        /// as RFC 6265 §5.4 says (see `HTTPCookie.cookies(_:sentTo:at:)`), within the limits of
        /// ``CookiePolicy`` (8 KiB, 150 cookies, none for a public suffix), in place of the
        /// session's own choice; for each task on a session that ``URLSessionTransport`` owns, and
        /// for a request that a redirect leads to.
        ///
        /// Linux's URLSession (swift-corelibs-foundation 6.3.1) chooses a request's cookies by host
        /// alone: a `Secure` cookie went over plain HTTP, a cookie for `/admin` went to `/public`,
        /// and one that a `Max-Age` had expired went on. It sets them when a task is made, and
        /// again on each redirect it follows on its own; on a redirect that a delegate decides
        /// about, and every task of ``URLSessionTransport`` has one, it sends the request the
        /// delegate returns as it is, so a cookie that the redirect's own response set (a sign-in
        /// that redirects to the signed-in page) would be missing.
        ///
        /// A `Cookie` field of the caller's own (`callersCookie`, still on the request) overrides
        /// the stored cookies, as Apple documents for `httpShouldHandleCookies`; Linux's session
        /// replaced it with them. Any other `Cookie` (one that stored cookies gave an earlier URL,
        /// a redirect's origin) gives way to the cookies for this URL, or is removed.
        ///
        /// - Parameters:
        ///   - storage: The cookie storage of the session's configuration.
        ///   - callersCookie: The `Cookie` field that the caller gave the request, if any.
        /// - Returns: The request to send.
        func settingCookies(from storage: HTTPCookieStorage, keeping callersCookie: String?) -> URLRequest {
            let current = value(forHTTPHeaderField: "Cookie")
            guard let url, current == nil || current != callersCookie else { return self }
            let stored = storage.cookies(for: url) ?? []
            if stored.isEmpty && current == nil {
                return self  // the usual case without cookies: no more work
            }
            // Cookie hook (see CookiePolicy): the field within its limits, without public-suffix cookies.
            let cookies = HTTPCookie.cookies(stored, sentTo: url, at: Date())
            let field = CookiePolicy.standard.cookieField(carrying: cookies, to: url)
            guard field != current else { return self }
            var request = self
            request.setValue(field, forHTTPHeaderField: "Cookie")
            return request
        }
    }
#endif
