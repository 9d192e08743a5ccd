import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: what a session that Kilo owns needs to behave.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a task cancelled while its
    // cached response is still being looked up can crash the process; timeouts are truncated to
    // whole seconds (0.5 s expires at once) and an infinite one traps; cookies are chosen by host
    // alone; delegate events wait for a thread of the delegate queue's.
    // Tests: URLSessionTransport+CancellationTests, URLSessionTransportTests (timeouts), the
    // cookie suites.
    // Remove each adjustment when corelibs fixes what it handles.
    extension URLSessionConfiguration {
        /// A copy of this configuration for a session Kilo owns: its URL cache answers lookups at
        /// once (see ``ImmediateLookupURLCache``), its request timeout is one the session can
        /// count, and it neither sets nor stores cookies itself: Kilo chooses them (see
        /// `URLRequest.settingCookies(from:keeping:)`) and stores them (see ``CookieJar``), in
        /// the configuration's storage, within ``CookiePolicy``'s limits.
        func preparedForKilo() -> URLSessionConfiguration {
            guard let copy = self.copy() as? URLSessionConfiguration else { return self }
            if let cache = urlCache, type(of: cache) == URLCache.self {
                copy.urlCache = ImmediateLookupURLCache(storingIn: cache)
            }
            if timeoutIntervalForRequest > 0 {
                copy.timeoutIntervalForRequest = URLRequest.countableTimeout(timeoutIntervalForRequest)
            }
            copy.httpShouldSetCookies = false
            return CookieJar.sessionConfiguration(copy)
        }
    }

    extension URLRequest {
        /// `timeout` as Linux's URLSession can count it: rounded up to whole seconds (it
        /// truncates, so 0.5 s would expire at once), at least 1 s, at most
        /// ``TransportRequest/longestTimeout``.
        static func countableTimeout(_ timeout: TimeInterval) -> TimeInterval {
            max(1, min(timeout, TransportRequest.longestTimeout).rounded(.up))
        }

        /// This request as Linux's URLSession needs it: a countable timeout, and the cookies
        /// Kilo chooses from `storage`, if the transport sets them itself.
        func preparedForLinux(cookiesFrom storage: HTTPCookieStorage?, keeping callersCookie: String?) -> URLRequest {
            var request = self
            request.timeoutInterval = Self.countableTimeout(timeoutInterval)
            guard let storage else { return request }
            return request.settingCookies(from: storage, keeping: callersCookie)
        }
    }

#endif
