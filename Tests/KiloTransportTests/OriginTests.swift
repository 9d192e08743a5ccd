import Foundation
import KiloTransport
import Testing

@Suite struct OriginTests {
    /// Origins compare scheme, host and port, case aside and the default port counted; hosts as
    /// sent, so that two that do not decode (`URL.host` is `nil` for both) are not one origin.
    @Test(arguments: [
        ("https://API.example.com:443/a", "https://api.example.com/b", true),
        ("HTTP://api.example.com/a", "http://api.example.com:80/b", true),
        ("https://api.example.com/a", "http://api.example.com/a", false),
        ("https://api.example.com/a", "https://api.example.com:8443/a", false),
        ("http://%FF/a", "http://%FE/a", false),
        ("http://%FF/a", "http://%ff/b", true),
        ("http://[::1]:8080/a", "http://[::1]:8080/b", true),
        ("http://[::1]/a", "http://[::2]/a", false),
        ("https://user:secret@api.example.com/a", "https://api.example.com/b", true),
    ])
    func originsCompareSchemeHostAndPort(lhs: String, rhs: String, isSame: Bool) throws {
        let left = try #require(URL(string: lhs))
        let right = try #require(URL(string: rhs))
        #expect(Origin(left)?.contains(right) == isSame)
        #expect(Origin(right)?.contains(left) == isSame)
    }

    @Test func anOriginIsItsSchemeHostAndPort() throws {
        let url = try #require(URL(string: "HTTPS://API.Example.com/a?b=c"))
        let origin = try #require(Origin(url))
        #expect(origin.scheme == "https")
        #expect(origin.host == "api.example.com")
        #expect(origin.port == 443)
        let loopback = try #require(URL(string: "http://[::1]:8080/"))
        #expect(Origin(loopback)?.port == 8080)
    }

    /// A URL without a host has no origin, so nothing is of the same origin as it.
    @Test(arguments: ["file:///etc/passwd", "mailto:alice@example.com", "/relative/path", "http:///a"])
    func aURLWithoutAHostHasNoOrigin(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(Origin(url) == nil)
    }

    /// A relative URL's origin is its base URL's.
    @Test func aRelativeURLHasItsBaseURLsOrigin() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let relative = try #require(URL(string: "items/3", relativeTo: base))
        #expect(Origin(relative) == Origin(base))
    }

    /// The user and password come off as sent, even where they do not decode (`%FF`) and
    /// `URL.user` is `nil`; the rest of the URL stays as it was.
    @Test(arguments: [
        ("https://alice:secret@cdn.example.net/items?a=1", "https://cdn.example.net/items?a=1"),
        ("https://%FF@cdn.example.net/items?a=1#top", "https://cdn.example.net/items?a=1#top"),
        ("https://a:%FF%FE@cdn.example.net:8443/x%20y", "https://cdn.example.net:8443/x%20y"),
        ("https://cdn.example.net/items?a=1", "https://cdn.example.net/items?a=1"),
    ])
    func userInfoComesOffAsSent(text: String, expected: String) throws {
        let url = try #require(URL(string: text))
        let cleared = try #require(Origin.withoutUserInfo(url))
        #expect(cleared.absoluteString == expected)
    }

    /// A `Location` resolves against the redirected URL as RFC 3986 says, relative paths too.
    @Test(arguments: [
        ("https://api.example.com/v1/items/3", "4", "https://api.example.com/v1/items/4"),
        ("https://api.example.com/v1/items", "/v2/x?a=1", "https://api.example.com/v2/x?a=1"),
        ("https://api.example.com/v1", "//cdn.example.net/y", "https://cdn.example.net/y"),
        ("https://api.example.com/v1", "HTTP://cdn.example.net:65535/", "HTTP://cdn.example.net:65535/"),
    ])
    func aRedirectTargetResolvesAgainstTheRedirectedURL(from: String, location: String, expected: String) throws {
        let url = try #require(URL(string: from))
        #expect(Origin.redirectTarget(of: location, from: url)?.absoluteString == expected)
    }

    /// A `Location` that is not an `http` or `https` URL with a host and a valid port is not
    /// followed.
    @Test(arguments: [
        "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "ftp://example.com/x",
        "http:///echo", "http://127.0.0.1:65536/", "http://[::1]:70000/", "mailto:a@example.com", "http://%FE/b",
        "http://example.com:99999999999999999999/",
    ])
    func aRedirectTargetMustBeAnHTTPURLWithAHost(location: String) throws {
        let url = try #require(URL(string: "https://api.example.com/v1/items"))
        #expect(Origin.redirectTarget(of: location, from: url) == nil)
    }
}
