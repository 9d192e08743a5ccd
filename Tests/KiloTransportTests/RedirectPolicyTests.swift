import Foundation
import KiloTransport
import Testing

/// Which redirects are followed, and how the next request is made, without a network: the one
/// policy both transports follow.
@Suite struct RedirectPolicyTests {
    private static let origin = URL(string: "https://api.example.com/v1/items?x=1")!

    private static func post(_ url: URL = origin) -> TransportRequest {
        TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "application/json", "Authorization": "Bearer t", "X-Kept": "yes"],
            body: .data(Data("{}".utf8)),
            timeoutInterval: 5
        )
    }

    @Test(arguments: [301, 302, 303])
    func seeOtherAndFriendsBecomeGETWithoutABody(status: Int) throws {
        let next = try #require(RedirectPolicy.request(following: status, location: "/v2/items", from: Self.post()))
        #expect(next.method == .get)
        #expect(next.body == nil)
        #expect(next.url.absoluteString == "https://api.example.com/v2/items")
        #expect(next.headers["Content-Type"] == nil)
        #expect(next.headers["Authorization"] == "Bearer t")
        #expect(next.headers["X-Kept"] == "yes")
        #expect(next.timeoutInterval == 5)
    }

    /// RFC 9110 lets a client change only a `POST` to a `GET` on a 301 or 302, and Linux's
    /// `URLSession` does only that: a `DELETE` made into a `GET` would report the target's 200.
    @Test(arguments: [HTTPMethod.put, .patch, .delete], [301, 302])
    func otherMethodsKeepMethodAndBodyOn301And302(method: HTTPMethod, status: Int) throws {
        var request = Self.post()
        request.method = method
        let next = try #require(RedirectPolicy.request(following: status, location: "/b", from: request))
        #expect(next.method == method)
        #expect(next.body == .data(Data("{}".utf8)))
        #expect(next.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func otherMethodsBecomeGETOn303(method: HTTPMethod) throws {
        var request = Self.post()
        request.method = method
        let next = try #require(RedirectPolicy.request(following: 303, location: "/b", from: request))
        #expect(next.method == .get)
        #expect(next.body == nil)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func headStaysHead(status: Int) throws {
        let request = TransportRequest(method: .head, url: Self.origin)
        #expect(RedirectPolicy.request(following: status, location: "/b", from: request)?.method == .head)
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsRepeatMethodAndBody(status: Int) throws {
        let file = URL(fileURLWithPath: "/tmp/upload.bin")
        var request = Self.post()
        request.body = .file(file)
        let next = try #require(RedirectPolicy.request(following: status, location: "other", from: request))
        #expect(next.method == .post)
        #expect(next.body == .file(file))
        #expect(next.headers["Content-Type"] == "application/json")
        #expect(next.url.absoluteString == "https://api.example.com/v1/other")
    }

    @Test(arguments: [
        "https://other.example.com/", "http://api.example.com/v1/items", "https://api.example.com:8443/",
    ])
    func credentialsStayWithTheirOrigin(location: String) throws {
        var request = Self.post()
        request.headers["Cookie"] = "a=1"
        request.headers["Proxy-Authorization"] = "Basic x"
        let next = try #require(RedirectPolicy.request(following: 307, location: location, from: request))
        #expect(next.headers["Authorization"] == nil)
        #expect(next.headers["Cookie"] == nil)
        #expect(next.headers["Proxy-Authorization"] == nil)
        #expect(next.headers["X-Kept"] == "yes")
    }

    /// A user and password in the target's URL, which the transport would send as Basic
    /// authentication, stay off another origin too, even ones that do not decode (`%FF`).
    @Test(arguments: ["https://alice:pw@other.example.com/a?b=1", "https://%FF@other.example.com/a?b=1"])
    func theTargetsUserInfoIsDroppedOnAnotherOrigin(location: String) throws {
        let next = try #require(RedirectPolicy.request(following: 302, location: location, from: Self.post()))
        #expect(next.url.absoluteString == "https://other.example.com/a?b=1")
        #expect(next.headers["Authorization"] == nil)
    }

    /// A target whose host does not decode (`URL.host` is `nil`) is not followed, so two such
    /// hosts are never taken for one origin.
    @Test func aTargetWhoseHostDoesNotDecodeIsNotFollowed() throws {
        let request = Self.post(try #require(URL(string: "http://%FF/a")))
        #expect(RedirectPolicy.request(following: 307, location: "http://%FE/b", from: request) == nil)
    }

    @Test func theDefaultPortIsTheSameOrigin() throws {
        let next = try #require(
            RedirectPolicy.request(following: 302, location: "https://API.example.com:443/z", from: Self.post())
        )
        #expect(next.headers["Authorization"] == "Bearer t")
    }

    @Test(arguments: [200, 204, 300, 304, 305, 400, 404, 500])
    func otherStatusesAreNotRedirects(status: Int) {
        #expect(RedirectPolicy.request(following: status, location: "/b", from: Self.post()) == nil)
    }

    @Test(arguments: [String?.none, "ftp://example.com/file", "file:///etc/hosts", "mailto:a@example.com"])
    func aMissingOrNonHTTPLocationIsNotFollowed(location: String?) {
        #expect(RedirectPolicy.request(following: 302, location: location, from: Self.post()) == nil)
    }

    // MARK: The chain

    @Test func twentyRedirectsAreFollowedAndTheTwentyFirstFails() throws {
        var chain = RedirectPolicy.Chain("GET", URL(string: "https://a.example/0")!)
        for hop in 1...20 {
            try chain.follow("GET", to: URL(string: "https://a.example/\(hop)")!, setsCookies: false)
        }
        #expect(chain.count == 20)
        let error = #expect(throws: URLError.self) {
            try chain.follow("GET", to: URL(string: "https://a.example/21")!, setsCookies: false)
        }
        #expect(error?.code == .httpTooManyRedirects)
    }

    /// A request made a third time with nothing changed is a loop: it fails then, rather than
    /// after twenty hops. Once back is allowed.
    @Test func aLoopFailsAtItsThirdRound() throws {
        var chain = RedirectPolicy.Chain("GET", URL(string: "https://a.example/start")!)
        try chain.follow("GET", to: URL(string: "https://a.example/next")!, setsCookies: false)
        try chain.follow("GET", to: URL(string: "https://a.example/start")!, setsCookies: false)
        try chain.follow("GET", to: URL(string: "https://a.example/next")!, setsCookies: false)
        let error = #expect(throws: URLError.self) {
            try chain.follow("GET", to: URL(string: "https://a.example/start")!, setsCookies: false)
        }
        #expect(error?.code == .httpTooManyRedirects)
    }

    /// A sign-in that sets a cookie and redirects back where it began is no loop: the cookie
    /// changes what the same request gets. The same URL with another method is another request.
    @Test func aCookieOrAnotherMethodIsNoLoop() throws {
        var chain = RedirectPolicy.Chain("POST", URL(string: "https://a.example/start")!)
        try chain.follow("GET", to: URL(string: "https://a.example/start")!, setsCookies: false)
        try chain.follow("GET", to: URL(string: "https://a.example/login")!, setsCookies: false)
        try chain.follow("GET", to: URL(string: "https://a.example/start")!, setsCookies: true)
        #expect(chain.count == 3)
    }

    @Test(arguments: [(301, HTTPMethod.post, HTTPMethod.get, false), (302, .post, .get, false), (303, .put, .get, false),
        (303, .head, .head, true), (301, .put, .put, true), (307, .post, .post, true), (308, .delete, .delete, true)])
    func theMethodAfterARedirect(status: Int, method: HTTPMethod, next: HTTPMethod, keepsBody: Bool) {
        let after = RedirectPolicy.method(after: status, of: method)
        #expect(after.method == next)
        #expect(after.keepsBody == keepsBody)
    }
}
