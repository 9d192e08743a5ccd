import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: a session stores every cookie a response sets, whatever their number or `Domain`.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1, libcurl 7.88): see the jar's own
    // description below; on Apple platforms the platform's URLSession stores cookies itself.
    // Tests: CookieJarTests, URLSessionTransport+CookieDefenceTests, SecureCookieTests.
    // Remove when corelibs limits what it stores and checks the Public Suffix List.

    /// A session's cookie storage, into which the cookies that responses set go through a ``CookiePolicy``.
    ///
    /// Every session ``URLSessionTransport`` sends with on Linux (the one it owns, or the companion of
    /// yours) stores no cookies itself (its copy of the configuration has `httpCookieAcceptPolicy =
    /// .never`), and the jar stores each response's cookies, a redirect's included, in the configuration's
    /// storage, within the policy: at most 50 a response, none for a public suffix, no `Secure` one from
    /// plain `http`, and at most 150 for one site, the oldest going first.
    ///
    /// A jar made for a session that stores every cookie itself (`isStoredBySession`, which the transport
    /// never passes today, and only tests use) prunes after it instead: it deletes those that the policy
    /// would not have stored, and the oldest of a site beyond its 150.
    ///
    /// The behaviour it handles was seen in swift-corelibs-foundation 6.3.1 (libcurl 7.88): every cookie
    /// a response sets is stored, whatever its number or `Domain`, and all of a host's cookies go with
    /// each request to it, until libcurl refuses the request (`URLError(-1)`, a head over 1 MiB).
    /// `URLSessionTransportCookieDefenceTests` shows it. It can go when swift-corelibs-foundation limits
    /// what it stores and sends (as curl does since 7.84) and checks the Public Suffix List.
    struct CookieJar: Sendable {
        /// The storage the cookies go to.
        let storage: HTTPCookieStorage
        /// The limits and rules.
        let policy: CookiePolicy
        /// Whether the session stores each response's cookies itself, before Kilo sees the response: then
        /// the jar prunes after it, rather than storing.
        let isStoredBySession: Bool

        /// Creates the jar for the cookies that responses set on a session with `configuration`, or `nil`
        /// when such a session stores none: it has no cookie storage, or its `httpCookieAcceptPolicy` is
        /// `.never`.
        ///
        /// - Parameters:
        ///   - configuration: The session's configuration, as the caller gave it.
        ///   - isStoredBySession: Whether the session itself stores the cookies, or leaves them to the jar
        ///     (every session the transport sends with, made with ``sessionConfiguration(_:)``).
        ///   - policy: The limits and rules.
        init?(
            receivingFor configuration: URLSessionConfiguration,
            isStoredBySession: Bool,
            policy: CookiePolicy = .standard
        ) {
            guard let storage = configuration.httpCookieStorage, configuration.httpCookieAcceptPolicy != .never else {
                return nil
            }
            self.storage = storage
            self.policy = policy
            self.isStoredBySession = isStoredBySession
        }

        /// `configuration`, or a copy of it whose session stores no cookies, for a session whose cookies a
        /// jar stores instead (see ``init(receivingFor:isStoredBySession:policy:)``): its
        /// `httpCookieAcceptPolicy` is `.never`, and it keeps its storage, from which requests' cookies are
        /// still chosen.
        static func sessionConfiguration(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
            guard configuration.httpCookieStorage != nil, configuration.httpCookieAcceptPolicy != .never,
                let copy = configuration.copy() as? URLSessionConfiguration
            else { return configuration }
            copy.httpCookieAcceptPolicy = .never
            return copy
        }

        /// Takes in the cookies that `response` sets: stores those the policy allows, or, when the session
        /// has stored them all already, deletes the others; then keeps each site it touched within its limit.
        ///
        /// - Parameters:
        ///   - response: A response, a redirect's included.
        ///   - date: The time now.
        func receive(_ response: HTTPURLResponse, at date: Date = Date()) {
            guard let url = response.url, let host = url.host?.lowercased() else { return }
            let cookies = CookiePolicy.cookies(setBy: response)
            guard !cookies.isEmpty else { return }
            var sites: Set<String> = []
            for (index, cookie) in cookies.enumerated() {
                let accepted = index < policy.maximumCookiesPerResponse ? policy.accepted(cookie, from: url) : nil
                if isStoredBySession, accepted !== cookie, Self.isStoredBySession(cookie, host: host) {
                    storage.deleteCookie(cookie)  // the session stored it; the policy would not have
                }
                guard let accepted, !isStoredBySession || accepted !== cookie else { continue }
                if CookiePolicy.hasExpired(accepted, at: date) {
                    storage.deleteCookie(accepted)  // how a server deletes a cookie: Max-Age=0, or a past date
                } else {
                    storage.setCookie(accepted)
                    sites.insert(CookiePolicy.site(ofCookieDomain: accepted.domain))
                }
            }
            if isStoredBySession {
                sites.formUnion(cookies.map { CookiePolicy.site(ofCookieDomain: $0.domain) })
            }
            evictExcess(of: sites, at: date)
        }

        /// Deletes the oldest cookies of each of `sites` beyond the policy's limit.
        private func evictExcess(of sites: Set<String>, at date: Date) {
            guard !sites.isEmpty, let all = storage.cookies, all.count > policy.maximumCookiesPerSite else { return }
            var bySite: [String: [HTTPCookie]] = [:]
            var siteOfDomain: [String: String] = [:]
            for cookie in all {
                let site = siteOfDomain[cookie.domain] ?? CookiePolicy.site(ofCookieDomain: cookie.domain)
                siteOfDomain[cookie.domain] = site
                if sites.contains(site) {
                    bySite[site, default: []].append(cookie)
                }
            }
            for cookies in bySite.values {
                for cookie in policy.cookiesToEvict(from: cookies, at: date) {
                    storage.deleteCookie(cookie)
                }
            }
        }

        /// Whether swift-corelibs-foundation stores `cookie`, set by a response from `host`: when its domain
        /// is the host, or, for a domain cookie, the host or a suffix of it (`HTTPCookie.validFor(host:)`,
        /// 6.3.1).
        private static func isStoredBySession(_ cookie: HTTPCookie, host: String) -> Bool {
            let domain = cookie.domain.lowercased()
            guard domain.hasPrefix(".") else { return domain == host }
            return host == domain.dropFirst() || host.hasSuffix(domain)
        }
    }
#endif
