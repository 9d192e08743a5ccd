import Foundation
import Kilo
import Testing

@testable import KiloAsyncHTTPClient

/// Which redirects are followed, and how the next request is made, without a network.
@Suite struct RedirectTests {
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
        let next = try #require(Redirect.request(following: status, location: "/v2/items", from: Self.post()))
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
        let next = try #require(Redirect.request(following: status, location: "/b", from: request))
        #expect(next.method == method)
        #expect(next.body == .data(Data("{}".utf8)))
        #expect(next.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func otherMethodsBecomeGETOn303(method: HTTPMethod) throws {
        var request = Self.post()
        request.method = method
        let next = try #require(Redirect.request(following: 303, location: "/b", from: request))
        #expect(next.method == .get)
        #expect(next.body == nil)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func headStaysHead(status: Int) throws {
        let request = TransportRequest(method: .head, url: Self.origin)
        #expect(Redirect.request(following: status, location: "/b", from: request)?.method == .head)
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsRepeatMethodAndBody(status: Int) throws {
        let file = URL(fileURLWithPath: "/tmp/upload.bin")
        var request = Self.post()
        request.body = .file(file)
        let next = try #require(Redirect.request(following: status, location: "other", from: request))
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
        let next = try #require(Redirect.request(following: 307, location: location, from: request))
        #expect(next.headers["Authorization"] == nil)
        #expect(next.headers["Cookie"] == nil)
        #expect(next.headers["Proxy-Authorization"] == nil)
        #expect(next.headers["X-Kept"] == "yes")
    }

    /// A user and password in the target's URL, which the transport would send as Basic
    /// authentication, stay off another origin too, even ones that do not decode (`%FF`).
    @Test(arguments: ["https://alice:pw@other.example.com/a?b=1", "https://%FF@other.example.com/a?b=1"])
    func theTargetsUserInfoIsDroppedOnAnotherOrigin(location: String) throws {
        let next = try #require(Redirect.request(following: 302, location: location, from: Self.post()))
        #expect(next.url.absoluteString == "https://other.example.com/a?b=1")
        #expect(next.headers["Authorization"] == nil)
    }

    /// A target whose host does not decode (`URL.host` is `nil`) is not followed, so two such
    /// hosts are never taken for one origin.
    @Test func aTargetWhoseHostDoesNotDecodeIsNotFollowed() throws {
        let request = Self.post(try #require(URL(string: "http://%FF/a")))
        #expect(Redirect.request(following: 307, location: "http://%FE/b", from: request) == nil)
    }

    @Test func theDefaultPortIsTheSameOrigin() throws {
        let next = try #require(
            Redirect.request(following: 302, location: "https://API.example.com:443/z", from: Self.post())
        )
        #expect(next.headers["Authorization"] == "Bearer t")
    }

    @Test(arguments: [200, 204, 300, 304, 305, 400, 404, 500])
    func otherStatusesAreNotRedirects(status: Int) {
        #expect(Redirect.request(following: status, location: "/b", from: Self.post()) == nil)
    }

    @Test(arguments: [String?.none, "ftp://example.com/file", "file:///etc/hosts", "mailto:a@example.com"])
    func aMissingOrNonHTTPLocationIsNotFollowed(location: String?) {
        #expect(Redirect.request(following: 302, location: location, from: Self.post()) == nil)
    }
}
