import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Linux: the limits and rules a session does not apply to the cookies it stores and sends.
//
// Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): no limit on cookies stored or sent,
// none refused for a public suffix, `Secure` ones sent over plain HTTP. Portable code, used only
// by the Linux wing (CookieJar, URLRequest+Cookies).
// Tests: CookiePolicyTests, URLSessionTransport+CookieDefenceTests, SecureCookieTests.
// Remove with CookieJar.swift, or keep to give AsyncHTTPClientTransport a cookie store.

/// The limits and rules by which Kilo stores the cookies that servers set, and sends them back: its
/// defence against a server that floods a client with cookies, or sets them for a whole public suffix.
///
/// The limits are curl's (which fixed the same flood, CVE-2022-32205) and a browser's:
///
/// - at most ``maximumCookiesPerResponse`` (50) cookies are stored from one response; the rest of its
///   `Set-Cookie` fields are ignored, in the order they came;
/// - at most ``maximumCookiesPerSite`` (150) cookies are kept for one site, its registrable domain
///   (`example.com` for `www.example.com` and `api.example.com`; the host itself for an IP address or a
///   host such as `localhost`); beyond that the oldest go first (expired ones, then by the time they were
///   made), as ``cookiesToEvict(from:at:)`` says;
/// - a `Cookie` field carries at most ``maximumCookieFieldLength`` (8 KiB) and
///   ``maximumCookiesPerRequest`` (150) cookies: in RFC 6265's order (longer paths first, then the
///   earlier made), each cookie that still fits goes, and the others stay behind.
///
/// And its rules, from RFC 6265 and its successor (RFC 6265bis):
///
/// - a cookie whose `Domain` is a public suffix (`Domain=com`, `Domain=co.uk`; see ``PublicSuffixList``)
///   is not stored, unless the response came from that very host, for which it is kept as a host-only
///   cookie (§5.3 step 5); nor is one whose `Domain` the host does not domain-match, or that names a
///   domain for an IP address;
/// - a `Secure` cookie is stored only from an `https` (or `wss`) response, and sent only over one.
struct CookiePolicy: Sendable {
    /// The most cookies stored from one response.
    var maximumCookiesPerResponse = 50
    /// The most cookies kept for one site (registrable domain).
    var maximumCookiesPerSite = 150
    /// The most bytes in the `Cookie` field of one request.
    var maximumCookieFieldLength = 8 * 1024
    /// The most cookies in the `Cookie` field of one request.
    var maximumCookiesPerRequest = 150

    /// The policy with the limits above.
    static let standard = CookiePolicy()

    /// The cookies that `response` sets that may be stored: the first ``maximumCookiesPerResponse`` of
    /// its `Set-Cookie` fields, less those ``accepted(_:from:)`` refuses.
    ///
    /// - Parameter response: A response, a redirect's included.
    /// - Returns: The cookies to store, in the order the response set them.
    func cookiesToStore(from response: HTTPURLResponse) -> [HTTPCookie] {
        guard let url = response.url else { return [] }
        let cookies = Self.cookies(setBy: response, atMost: maximumCookiesPerResponse)
        return cookies.prefix(maximumCookiesPerResponse).compactMap { accepted($0, from: url) }
    }

    /// The cookies that `response` sets, as the platform parses its `Set-Cookie` fields.
    ///
    /// - Parameters:
    ///   - response: A response.
    ///   - limit: How many cookies to parse, at most: the rest of the field is not read (parsing takes
    ///     swift-corelibs-foundation about a second for 20,000 small cookies); `nil` for all.
    /// - Returns: The cookies, in the order the response set them.
    static func cookies(setBy response: HTTPURLResponse, atMost limit: Int? = nil) -> [HTTPCookie] {
        guard let url = response.url, let field = response.value(forHTTPHeaderField: "Set-Cookie") else { return [] }
        let parsed = limit.map { String(Self.prefix(of: field, cookies: $0)) } ?? field
        return HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": parsed], for: url)
    }

    /// The start of `field`, the `Set-Cookie` fields of a response joined with commas, that holds its first
    /// `count` cookies: it ends before the comma that starts the next one, a comma followed by a token and
    /// `=` (the rule swift-corelibs-foundation splits by, which keeps the comma of an `Expires` date).
    static func prefix(of field: String, cookies count: Int) -> Substring {
        let bytes = field.utf8
        var found = 0
        var index = bytes.startIndex
        while let comma = bytes[index...].firstIndex(of: UInt8(ascii: ",")) {
            var next = bytes[bytes.index(after: comma)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let token = next.prefix { isTokenByte($0) }
            next = next.dropFirst(token.count).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if !token.isEmpty, next.first == UInt8(ascii: "=") {
                found += 1
                if found == count {
                    return field[..<comma]
                }
            }
            index = bytes.index(after: comma)
        }
        return field[...]
    }

    /// Whether `byte` may be part of an HTTP token (RFC 9110 §5.6.2): a visible ASCII character that is
    /// not a delimiter.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && !#"()<>@,;:\"/[]?={}"#.utf8.contains(byte)
    }

    /// `cookie`, as the policy lets a response from `url` set it; `nil` when it may not.
    ///
    /// - Parameters:
    ///   - cookie: A cookie that the response sets.
    ///   - url: The response's URL.
    /// - Returns: The cookie to store: `cookie`, or a host-only copy of it when its `Domain` is a public
    ///   suffix that is the host itself, or an IP address that is the host itself.
    func accepted(_ cookie: HTTPCookie, from url: URL) -> HTTPCookie? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if cookie.isSecure && !Self.isSecure(url) {
            return nil
        }
        let domain = cookie.domain.lowercased()
        guard domain.hasPrefix(".") else {
            return domain == host ? cookie : nil  // host-only
        }
        let named = String(domain.dropFirst())
        if named == host && (Self.isIPAddress(host) || PublicSuffixList.isPublicSuffix(host)) {
            return Self.hostOnly(cookie, host: host)
        }
        guard !Self.isIPAddress(host), !PublicSuffixList.isPublicSuffix(named),
            host == named || host.hasSuffix("." + named)
        else { return nil }
        return cookie
    }

    /// The cookies to delete from `cookies`, all of them kept for one site, so that no more than
    /// ``maximumCookiesPerSite`` remain: expired ones first, then the oldest, by the time they were made
    /// (HTTPCookieStorage records no time of last use, which RFC 6265 suggests instead).
    ///
    /// - Parameters:
    ///   - cookies: The cookies of one site.
    ///   - date: The time now.
    /// - Returns: The cookies to delete; empty when there are not too many.
    func cookiesToEvict(from cookies: [HTTPCookie], at date: Date) -> [HTTPCookie] {
        let excess = cookies.count - maximumCookiesPerSite
        guard excess > 0 else { return [] }
        let ordered = cookies.enumerated().sorted { lhs, rhs in
            let (left, right) = (Self.hasExpired(lhs.element, at: date), Self.hasExpired(rhs.element, at: date))
            if left != right {
                return left
            }
            let (leftTime, rightTime) = (Self.creationTime(of: lhs.element), Self.creationTime(of: rhs.element))
            return leftTime != rightTime ? leftTime < rightTime : lhs.offset < rhs.offset
        }
        return ordered.prefix(excess).map(\.element)
    }

    /// The `Cookie` field for a request to `url` that carries `cookies`, within the limits: each
    /// cookie, in the order given, that still fits in ``maximumCookieFieldLength`` bytes, up to
    /// ``maximumCookiesPerRequest``; a cookie for a public-suffix domain, or a `Secure` cookie over a
    /// scheme that is not secure, never goes.
    ///
    /// - Parameters:
    ///   - cookies: The cookies that go with the request, in RFC 6265's order (see
    ///     `HTTPCookie.cookies(_:sentTo:at:)`).
    ///   - url: The request's URL.
    /// - Returns: The field's value (`name=value; name=value`), or `nil` when no cookie goes.
    func cookieField(carrying cookies: [HTTPCookie], to url: URL) -> String? {
        let host = url.host?.lowercased() ?? ""
        let isSecure = Self.isSecure(url)
        var field = ""
        var count = 0
        for cookie in cookies where count < maximumCookiesPerRequest {
            if cookie.isSecure && !isSecure {
                continue
            }
            let domain = cookie.domain.lowercased()
            if domain.hasPrefix("."), domain.dropFirst() != host,
                PublicSuffixList.isPublicSuffix(String(domain.dropFirst()))
            {
                continue  // stored by someone else: the session, or the caller
            }
            let pair = "\(cookie.name)=\(cookie.value)"
            let length = field.utf8.count + (field.isEmpty ? 0 : 2) + pair.utf8.count
            guard length <= maximumCookieFieldLength else { continue }
            field += field.isEmpty ? pair : "; " + pair
            count += 1
        }
        return field.isEmpty ? nil : field
    }

    /// The site whose limit a cookie for `domain` counts toward: its registrable domain, or, for an IP
    /// address or a public suffix, the domain itself.
    ///
    /// - Parameter domain: A cookie's domain, with or without its leading dot.
    /// - Returns: The site, lowercased.
    static func site(ofCookieDomain domain: String) -> String {
        let name = domain.hasPrefix(".") ? String(domain.dropFirst()).lowercased() : domain.lowercased()
        guard !isIPAddress(name) else { return name }
        return PublicSuffixList.registrableDomain(of: name) ?? name
    }

    /// Whether `url`'s scheme is a secure one, over which `Secure` cookies go.
    static func isSecure(_ url: URL) -> Bool {
        ["https", "wss"].contains(url.scheme?.lowercased())
    }

    /// Whether `host` is an IPv6 address or a dotted IPv4 address.
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// A copy of `cookie` for `host` alone.
    private static func hostOnly(_ cookie: HTTPCookie, host: String) -> HTTPCookie? {
        var properties = cookie.properties ?? [:]
        properties[.domain] = host
        return HTTPCookie(properties: properties)
    }

    /// When `cookie` was made, in seconds since the reference date, as swift-corelibs-foundation records
    /// it in its properties; 0 when it has none.
    static func creationTime(of cookie: HTTPCookie) -> TimeInterval {
        cookie.properties?[HTTPCookiePropertyKey("Created")] as? TimeInterval ?? 0
    }

    /// Whether `cookie` has expired at `date`: its `Max-Age`, which takes precedence, has passed since it
    /// was made (at once for 0 or less), or its `expiresDate` has passed.
    static func hasExpired(_ cookie: HTTPCookie, at date: Date) -> Bool {
        let properties = cookie.properties
        let maximumAge = properties?[.maximumAge].flatMap { ($0 as? String).flatMap { Int($0) } ?? ($0 as? Int) }
        if let maximumAge, let created = properties?[HTTPCookiePropertyKey("Created")] as? TimeInterval {
            return maximumAge <= 0 || date.timeIntervalSinceReferenceDate >= created + TimeInterval(maximumAge)
        }
        return cookie.expiresDate.map { $0 <= date } ?? false
    }
}
