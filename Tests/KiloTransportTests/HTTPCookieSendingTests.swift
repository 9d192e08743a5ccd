#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import Testing

    @testable import KiloTransport

    /// `HTTPCookie.cookies(_:sentTo:at:)` chooses a request's cookies as RFC 6265 §5.4 says, where
    /// swift-corelibs-foundation's `HTTPCookieStorage.cookies(for:)` looks at the host alone.
    @Suite struct HTTPCookieSendingTests {
        private static let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

        private func cookie(
            _ name: String,
            domain: String = "example.com",
            path: String = "/",
            secure: Bool = false,
            properties extra: [HTTPCookiePropertyKey: Any] = [:]
        ) throws -> HTTPCookie {
            var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: "1", .domain: domain, .path: path]
            if secure {
                properties[.secure] = "TRUE"
            }
            properties.merge(extra) { _, new in new }
            return try #require(HTTPCookie(properties: properties))
        }

        private func names(_ cookies: [HTTPCookie], sentTo url: String, at date: Date = now) throws -> [String] {
            HTTPCookie.cookies(cookies, sentTo: try #require(URL(string: url)), at: date).map(\.name)
        }

        @Test(arguments: [
            ("http://example.com/", true), ("http://EXAMPLE.com/", true), ("http://www.example.com/", false),
            ("http://example.org/", false), ("http://badexample.com/", false),
        ])
        func aHostOnlyCookieGoesToItsHostAlone(url: String, isSent: Bool) throws {
            #expect(try names([cookie("a")], sentTo: url) == (isSent ? ["a"] : []))
        }

        @Test(arguments: [
            ("http://example.com/", true), ("http://www.example.com/", true), ("http://a.b.example.com/", true),
            ("http://badexample.com/", false), ("http://example.com.evil.org/", false),
        ])
        func aDomainCookieGoesToTheDomainAndItsSubdomains(url: String, isSent: Bool) throws {
            #expect(try names([cookie("a", domain: ".example.com")], sentTo: url) == (isSent ? ["a"] : []))
        }

        @Test func aDomainCookieNeverMatchesAnIPAddressBySuffix() throws {
            #expect(try names([cookie("a", domain: ".0.0.1")], sentTo: "http://127.0.0.1/").isEmpty)
            #expect(try names([cookie("a", domain: "127.0.0.1")], sentTo: "http://127.0.0.1/") == ["a"])
        }

        @Test(arguments: [
            ("/admin", "http://example.com/admin", true), ("/admin", "http://example.com/admin/users", true),
            ("/admin", "http://example.com/admin?x=1", true), ("/admin", "http://example.com/administrator", false),
            ("/admin", "http://example.com/public", false), ("/admin", "http://example.com/", false),
            ("/admin/", "http://example.com/admin/x", true), ("/admin/", "http://example.com/admin", false),
            ("/", "http://example.com", true), ("/a%20b", "http://example.com/a%20b/c", true),
        ])
        func aCookieGoesOnlyWhereItsPathMatches(cookiePath: String, url: String, isSent: Bool) throws {
            #expect(try names([cookie("a", path: cookiePath)], sentTo: url) == (isSent ? ["a"] : []))
        }

        @Test(arguments: [("http://example.com/", false), ("https://example.com/", true), ("wss://example.com/", true)])
        func aSecureCookieGoesOnlyOverASecureScheme(url: String, isSent: Bool) throws {
            let cookies = [try cookie("secure", secure: true), try cookie("plain")]
            #expect(Set(try names(cookies, sentTo: url)) == (isSent ? ["secure", "plain"] : ["plain"]))
        }

        @Test func anExpiredCookieStaysBehind() throws {
            let expired = try cookie("old", properties: [.expires: Self.now.addingTimeInterval(-1)])
            let fresh = try cookie("new", properties: [.expires: Self.now.addingTimeInterval(60)])
            #expect(try names([expired, fresh], sentTo: "http://example.com/") == ["new"])
        }

        /// swift-corelibs-foundation keeps a `Max-Age` among the properties, and the time the
        /// cookie was made, but gives the cookie no `expiresDate`, so the storage keeps sending it;
        /// `Max-Age=0` is how a server deletes one.
        @Test func aCookiePastItsMaxAgeStaysBehind() throws {
            let cookies = try [("gone", "0"), ("expired", "5"), ("alive", "60")].map { name, age in
                try cookie(name, properties: [.maximumAge: age])
            }
            #expect(cookies.allSatisfy { $0.expiresDate == nil })
            #expect(try names(cookies, sentTo: "http://example.com/", at: Date().addingTimeInterval(10)) == ["alive"])
        }

        @Test func aSetCookieFieldsMaxAgeIsCountedFromWhenItArrived() throws {
            let url = try #require(URL(string: "http://example.com/"))
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "a=1; Max-Age=2"], for: url)
            #expect(HTTPCookie.cookies(cookies, sentTo: url, at: Date()).map(\.name) == ["a"])
            #expect(HTTPCookie.cookies(cookies, sentTo: url, at: Date().addingTimeInterval(3)).isEmpty)
        }

        @Test func longerPathsGoFirstThenTheEarlierCreated() throws {
            let cookies = try [
                cookie("older"), cookie("deep", path: "/a/b"), cookie("root"), cookie("mid", path: "/a"),
            ]
            #expect(
                try names(cookies.reversed(), sentTo: "http://example.com/a/b/c") == ["deep", "mid", "older", "root"]
            )
        }

        @Test func aURLWithoutAHostGetsNoCookies() throws {
            #expect(try names([cookie("a")], sentTo: "file:///tmp/x").isEmpty)
        }
    }
#endif
