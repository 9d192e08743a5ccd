import Foundation
import Testing

@testable import KiloTransport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CookiePolicy` decides which cookies are stored and sent: its limits, and RFC 6265's rules for
/// public suffixes, IP addresses and `Secure`.
@Suite struct CookiePolicyTests {
    private func response(_ url: String, setting fields: [String]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: url))
        return try #require(
            HTTPURLResponse(
                url: url,
                statusCode: 200,
                httpVersion: "HTTP/1.1",
                headerFields: [
                    "Set-Cookie": fields.joined(separator: ", ")
                ]
            )
        )
    }

    private func cookie(
        _ name: String,
        value: String = "1",
        domain: String = "example.com",
        path: String = "/",
        secure: Bool = false
    ) throws -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .domain: domain, .path: path]
        if secure {
            properties[.secure] = "TRUE"
        }
        return try #require(HTTPCookie(properties: properties))
    }

    @Test func atMostFiftyCookiesAreStoredFromOneResponse() throws {
        let fields = (0..<200).map { "c\($0)=v; Path=/" }
        let stored = CookiePolicy.standard.cookiesToStore(from: try response("http://example.com/", setting: fields))
        #expect(stored.map(\.name) == (0..<50).map { "c\($0)" })
    }

    /// Only the first 50 cookies are parsed: the rest of a field of 20,000 is not read.
    @Test func onlyTheCookiesThatCountAreParsed() throws {
        let field = "a=1; Expires=Wed, 21 Oct 2030 07:28:00 GMT, b=2,c=3 , d = 4, e=5"
        #expect(CookiePolicy.prefix(of: field, cookies: 1) == "a=1; Expires=Wed, 21 Oct 2030 07:28:00 GMT")
        #expect(CookiePolicy.prefix(of: field, cookies: 3) == "a=1; Expires=Wed, 21 Oct 2030 07:28:00 GMT, b=2,c=3 ")
        #expect(CookiePolicy.prefix(of: field, cookies: 5) == field[...])
        let many = try response("http://example.com/", setting: (0..<20_000).map { "c\($0)=v" })
        #expect(CookiePolicy.cookies(setBy: many, atMost: 50).map(\.name) == (0..<50).map { "c\($0)" })
    }

    @Test(arguments: [
        ("http://www.example.com/", "Domain=com"), ("http://www.example.co.uk/", "Domain=co.uk"),
        ("http://a.localhost/", "Domain=localhost"), ("http://user.github.io/", "Domain=github.io"),
        ("http://www.example.com/", "Domain=.com"), ("http://www.abeno.osaka.jp/", "Domain=abeno.osaka.jp"),
        ("http://shop.tonaki.okinawa.jp/", "Domain=tonaki.okinawa.jp"),
    ])
    func aCookieForAPublicSuffixIsNotStored(url: String, attribute: String) throws {
        let stored = CookiePolicy.standard.cookiesToStore(from: try response(url, setting: ["a=1; \(attribute)"]))
        #expect(stored.isEmpty)
    }

    /// RFC 6265 §5.3 step 5: the suffix's own host keeps it, for itself alone.
    @Test func aPublicSuffixHostKeepsItsOwnCookieAsHostOnly() throws {
        let stored = CookiePolicy.standard.cookiesToStore(
            from: try response("http://localhost/", setting: ["a=1; Domain=localhost"])
        )
        #expect(stored.map(\.domain) == ["localhost"])
    }

    @Test func aDomainCookieForTheRegistrableDomainIsStored() throws {
        let stored = CookiePolicy.standard.cookiesToStore(
            from: try response("http://www.example.co.uk/", setting: ["a=1; Domain=example.co.uk"])
        )
        #expect(stored.map(\.domain) == [".example.co.uk"])
    }

    @Test(arguments: ["Domain=0.1", "Domain=0.0.1", "Domain=other.example"])
    func aCookieForADomainTheHostDoesNotMatchIsNotStored(attribute: String) throws {
        let stored = CookiePolicy.standard.cookiesToStore(
            from: try response("http://127.0.0.1:8080/", setting: ["a=1; \(attribute)"])
        )
        #expect(stored.isEmpty)
    }

    @Test func aSecureCookieIsStoredOnlyFromASecureScheme() throws {
        let fields = ["s=1; Secure", "p=1"]
        #expect(
            CookiePolicy.standard.cookiesToStore(from: try response("http://example.com/", setting: fields))
                .map(\.name) == ["p"]
        )
        #expect(
            CookiePolicy.standard.cookiesToStore(from: try response("https://example.com/", setting: fields))
                .map(\.name) == ["s", "p"]
        )
    }

    @Test func theCookieFieldStopsAtEightKiB() throws {
        let cookies = try (0..<10).map { try cookie("c\($0)", value: String(repeating: "v", count: 1_500)) }
        let url = try #require(URL(string: "http://example.com/"))
        let field = try #require(CookiePolicy.standard.cookieField(carrying: cookies, to: url))
        #expect(field.utf8.count <= 8 * 1024)
        #expect(field.split(separator: ";").count == 5)
        #expect(field.hasPrefix("c0="))
    }

    /// A cookie too large for what is left still lets a smaller one after it go.
    @Test func aCookieThatDoesNotFitLetsSmallerOnesAfterItGo() throws {
        let cookies = try [
            cookie("big", value: String(repeating: "v", count: 6_000)),
            cookie("bigger", value: String(repeating: "v", count: 4_000)), cookie("small"),
        ]
        let url = try #require(URL(string: "http://example.com/"))
        let field = try #require(CookiePolicy.standard.cookieField(carrying: cookies, to: url))
        #expect(
            field.split(separator: ";").map { $0.split(separator: "=")[0].trimmingCharacters(in: .whitespaces) }
                == ["big", "small"]
        )
    }

    @Test func theCookieFieldCarriesAtMost150Cookies() throws {
        let cookies = try (0..<300).map { try cookie("c\($0)") }
        let url = try #require(URL(string: "http://example.com/"))
        let field = try #require(CookiePolicy.standard.cookieField(carrying: cookies, to: url))
        #expect(field.split(separator: ";").count == 150)
    }

    @Test func neitherAPublicSuffixCookieNorASecureOneOverHTTPGoes() throws {
        let cookies = try [cookie("tld", domain: ".com"), cookie("secure", secure: true), cookie("plain")]
        let url = try #require(URL(string: "http://example.com/"))
        #expect(CookiePolicy.standard.cookieField(carrying: cookies, to: url) == "plain=1")
        let secure = try #require(URL(string: "https://example.com/"))
        #expect(CookiePolicy.standard.cookieField(carrying: cookies, to: secure) == "secure=1; plain=1")
    }

    /// swift-corelibs-foundation records when each cookie was made (it ignores a `Created` property
    /// given to it), so the cookies are made one after the other.
    @Test func expiredThenOldestCookiesAreEvictedFirst() throws {
        var policy = CookiePolicy.standard
        policy.maximumCookiesPerSite = 2
        var cookies: [HTTPCookie] = []
        for name in ["old", "mid", "new"] {
            cookies.append(try cookie(name))
            Thread.sleep(forTimeInterval: 0.002)
        }
        let expired = try #require(
            HTTPCookie(properties: [
                .name: "expired", .value: "1", .domain: "example.com", .path: "/", .maximumAge: "0",
            ])
        )
        let shuffled = [cookies[2], cookies[0], expired, cookies[1]]
        #expect(policy.cookiesToEvict(from: shuffled, at: Date()).map(\.name) == ["expired", "old"])
        #expect(CookiePolicy.standard.cookiesToEvict(from: shuffled, at: Date()).isEmpty)
    }

    @Test(arguments: [
        ("www.example.com", "example.com"), (".example.co.uk", "example.co.uk"), ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"), ("a.localhost", "a.localhost"), (".com", "com"),
    ])
    func aCookieCountsTowardItsRegistrableDomain(domain: String, site: String) {
        #expect(CookiePolicy.site(ofCookieDomain: domain) == site)
    }
}
