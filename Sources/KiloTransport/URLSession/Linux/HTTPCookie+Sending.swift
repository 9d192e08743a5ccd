import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: the cookies a request carries are chosen by host alone.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): `HTTPCookieStorage.cookies(for:)`
    // matches a cookie's domain only: a `Secure` cookie went over plain HTTP, a cookie for
    // `/admin` went to `/public`, and one a `Max-Age` had expired went on being sent.
    // Tests: HTTPCookieSendingTests, URLSessionTransport+CookieTests, SecureCookieTests.
    // Remove when corelibs chooses cookies as RFC 6265 §5.4 says.
    extension HTTPCookie {
        /// The cookies among `cookies` that a request for `url` carries at `date`, by RFC 6265
        /// §5.4, in the order it gives: longer paths first, then the earlier created first.
        ///
        /// A cookie goes with the request when all of these hold:
        ///
        /// - its domain is the URL's host, or, for a domain cookie (one whose `domain` starts with
        ///   a dot, as swift-corelibs-foundation keeps a `Domain` attribute), the host ends with it
        ///   and is not an IP address;
        /// - its path path-matches the URL's path: the same path, or a prefix of it that ends with
        ///   `/` or is followed by `/` in it;
        /// - it is not `Secure`, or the URL's scheme is `https` or `wss`;
        /// - it has not expired: not past its `Max-Age` counted from its creation, which
        ///   swift-corelibs-foundation 6.3.1 reads but never applies, nor past its `expiresDate`.
        ///
        /// `HTTPCookieStorage.cookies(for:)` of swift-corelibs-foundation 6.3.1 checks only the
        /// first, so a `Secure` cookie went over plain HTTP, a cookie for `/admin` went to
        /// `/public`, and a cookie that a `Max-Age=0` deleted went on being sent.
        ///
        /// - Parameters:
        ///   - cookies: The cookies to choose from, such as a cookie storage's.
        ///   - url: The URL of the request.
        ///   - date: The time the request is sent.
        /// - Returns: The cookies to send, in the order to send them; empty for a URL without a host.
        static func cookies(_ cookies: [HTTPCookie], sentTo url: URL, at date: Date) -> [HTTPCookie] {
            guard !cookies.isEmpty, let host = url.host?.lowercased() else { return [] }
            let path = requestPath(of: url)
            let isSecureScheme = ["https", "wss"].contains(url.scheme?.lowercased())
            let sent = cookies.filter {
                domainMatches(host, cookieDomain: $0.domain.lowercased()) && pathMatches(path, cookiePath: $0.path)
                    && (isSecureScheme || !$0.isSecure) && !$0.hasExpired(at: date)
            }
            guard sent.count > 1 else { return sent }
            return sent.sorted {
                $0.path.utf8.count != $1.path.utf8.count
                    ? $0.path.utf8.count > $1.path.utf8.count : $0.creationTime < $1.creationTime
            }
        }

        /// The path of `url` that cookie paths are matched against: its percent-encoded path, or
        /// `/` when it has none (RFC 6265 §5.1.4).
        private static func requestPath(of url: URL) -> String {
            let path = url.path(percentEncoded: true)
            return path.hasPrefix("/") ? path : "/"
        }

        /// Whether `host` domain-matches a cookie's domain (RFC 6265 §5.1.3): the same, for a
        /// host-only cookie (no leading dot); for a domain cookie, the domain without its dot, or a
        /// host name (not an IP address) that ends with the domain.
        private static func domainMatches(_ host: String, cookieDomain: String) -> Bool {
            guard cookieDomain.hasPrefix(".") else { return host == cookieDomain }
            if host.utf8.elementsEqual(cookieDomain.utf8.dropFirst()) {
                return true
            }
            return host.hasSuffix(cookieDomain) && !isIPAddress(host)
        }

        /// Whether `host` is an IPv6 address or a dotted IPv4 address, which a domain cookie never
        /// matches by suffix.
        private static func isIPAddress(_ host: String) -> Bool {
            host.contains(":") || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
        }

        /// Whether `requestPath` path-matches a cookie's path (RFC 6265 §5.1.4).
        private static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
            guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
            return requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
                || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
        }

        /// When the cookie was made, in seconds since the reference date, as
        /// swift-corelibs-foundation records it in its properties; 0 when it has none.
        private var creationTime: TimeInterval {
            properties?[HTTPCookiePropertyKey("Created")] as? TimeInterval ?? 0
        }

        /// Whether the cookie has expired at `date`: its `Max-Age`, which takes precedence, has
        /// passed since it was made (at once for 0 or less), or its `expiresDate` has passed.
        private func hasExpired(at date: Date) -> Bool {
            let properties = properties
            let maximumAge = properties?[.maximumAge].flatMap { ($0 as? String).flatMap { Int($0) } ?? ($0 as? Int) }
            if let maximumAge, let created = properties?[HTTPCookiePropertyKey("Created")] as? TimeInterval {
                return maximumAge <= 0 || date.timeIntervalSinceReferenceDate >= created + TimeInterval(maximumAge)
            }
            return expiresDate.map { $0 <= date } ?? false
        }
    }
#endif
