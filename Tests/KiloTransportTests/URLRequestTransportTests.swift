import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct URLRequestTransportTests {
    private let url = URL(string: "https://api.example.com/users/9?expand=true&q=a%2Bb")!

    @Test(arguments: [HTTPMethod.get, .post, .put, .patch, .delete, .head, .options, HTTPMethod(rawValue: "purge")])
    func methodIsCopied(method: HTTPMethod) {
        let request = URLRequest(TransportRequest(method: method, url: url))
        #expect(request.httpMethod == method.rawValue)
    }

    @Test func urlIsCopiedWithItsQuery() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.url == url)
        #expect(request.url?.absoluteString == "https://api.example.com/users/9?expand=true&q=a%2Bb")
    }

    @Test func headersAreCopied() {
        let headers: HTTPHeaders = ["Accept": "application/json", "X-Token": "abc", "x-lower": "1"]
        let request = URLRequest(TransportRequest(method: .get, url: url, headers: headers))
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "x-token") == "abc")
        #expect(request.value(forHTTPHeaderField: "X-Lower") == "1")
        #expect(request.allHTTPHeaderFields?.count == 3)
    }

    /// Names in many spellings, some with the punctuation a token allows, which
    /// `String.capitalized` treats in different ways.
    static let headerNames = [
        "accept", "Content-Type", "x-api-key", "X-B3-TraceId", "etag", "WWW-Authenticate", "x_custom",
        "a.b", "it's", "x--y", "x-1a", "1abc", "x-ray2go", "x^y", "x`y", "x|y~z", "x!#$%&*+.", "ÄÖÜ-name",
    ]

    @Test(arguments: headerNames)
    func headersAreStoredAsSetValueStoresThem(name: String) {
        let headers: HTTPHeaders = [name: "v1", "X-Other-Field": "application/json"]
        var expected = URLRequest(url: url)
        for field in headers {
            expected.setValue(field.value, forHTTPHeaderField: field.name)
        }
        let request = URLRequest(TransportRequest(method: .get, url: url, headers: headers))
        #expect(request.allHTTPHeaderFields == expected.allHTTPHeaderFields)
        #expect(request.value(forHTTPHeaderField: name) == "v1")
    }

    @Test(arguments: ["a\r\nb", "a\nb", "a\rb", "a\u{0}b", "a\r\n b"])
    func aValueThatCannotBeSentIsLeftOut(value: String) {
        let headers: HTTPHeaders = ["X-Bad": value, "X-Good": "fine"]
        let request = URLRequest(TransportRequest(method: .get, url: url, headers: headers))
        #expect(request.value(forHTTPHeaderField: "X-Bad") == nil)
        #expect(request.value(forHTTPHeaderField: "X-Good") == "fine")
    }

    @Test(arguments: ["Content-Length", "content-length", "TRANSFER-ENCODING", "Transfer-Encoding"])
    func framingFieldsAreLeftForTheSessionToSet(name: String) {
        let headers: HTTPHeaders = [name: "1", "X-Good": "fine"]
        let body = Data("a=b".utf8)
        let request = URLRequest(TransportRequest(method: .post, url: url, headers: headers, body: .data(body)))
        #expect(request.value(forHTTPHeaderField: name) == nil)
        #expect(request.value(forHTTPHeaderField: "X-Good") == "fine")
        #expect(request.httpBody == body)
    }

    @Test func manyMoreNamesThanAreRememberedAreEachStoredAsSetValueStoresThem() {
        for index in 0..<600 {
            let name = "x-name-\(index)-of-many"
            let request = URLRequest(TransportRequest(method: .get, url: url, headers: [name: "1"]))
            var expected = URLRequest(url: url)
            expected.setValue("1", forHTTPHeaderField: name)
            #expect(request.allHTTPHeaderFields == expected.allHTTPHeaderFields)
        }
    }

    @Test func requestWithoutBodyGetsNoContentType() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func timeoutIsCopiedWhenGiven() {
        let request = URLRequest(TransportRequest(method: .get, url: url, timeoutInterval: 7))
        #expect(request.timeoutInterval == 7)
    }

    /// Linux's URLSession counts a timeout in milliseconds in an `Int`, and traps beyond it.
    @Test(arguments: [TimeInterval.infinity, .greatestFiniteMagnitude, 1e20])
    func endlessTimeoutIsGivenAsThirtyOneYears(timeout: TimeInterval) {
        let request = URLRequest(TransportRequest(method: .get, url: url, timeoutInterval: timeout))
        #expect(request.timeoutInterval == 1_000_000_000)
    }

    @Test func timeoutKeepsURLRequestsDefaultWhenNil() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.timeoutInterval == URLRequest(url: url).timeoutInterval)
    }

    @Test func dataBodyBecomesHTTPBody() {
        let body = Data(#"{"name":"Ann"}"#.utf8)
        let request = URLRequest(
            TransportRequest(
                method: .post,
                url: url,
                headers: ["Content-Type": "application/json"],
                body: .data(body)
            )
        )
        #expect(request.httpBody == body)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func fileBodyIsLeftForAnUploadTask() {
        let file = URL(fileURLWithPath: "/tmp/kilo-never-read.bin")
        let request = URLRequest(
            TransportRequest(method: .put, url: url, headers: ["Content-Type": "image/png"], body: .file(file))
        )
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "image/png")
    }

    @Test(arguments: [
        TransportRequest.Body.data(Data([1, 2, 3])),
        .data(Data()),
        .file(URL(fileURLWithPath: "/tmp/kilo-never-read.bin")),
    ])
    func bodyWithoutContentTypeIsLabelledOctetStream(body: TransportRequest.Body) {
        let request = URLRequest(TransportRequest(method: .post, url: url, body: body))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func contentTypeInAnyCaseIsKept() {
        let request = URLRequest(
            TransportRequest(
                method: .post,
                url: url,
                headers: ["content-type": "text/csv"],
                body: .data(Data("a,b".utf8))
            )
        )
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/csv")
        #expect(request.allHTTPHeaderFields?.count == 1)
    }
}

/// What Kilo puts in each `URLRequest`, the same on every platform (the Apple branches are built
/// on Linux in CI with their conditions forced).
@Suite struct URLRequestPlatformBehaviourTests {
    private let url = URL(string: "https://api.example.com/v1/items")!

    #if canImport(Darwin)
        /// A background session's configuration is refused before anything is sent (Apple
        /// platforms only: Linux has no background sessions).
        @Test func aBackgroundSessionIsRefused() async throws {
            let configuration = URLSessionConfiguration.background(withIdentifier: "org.kilo.tests.background")
            let transport = URLSessionTransport(configuration: configuration)
            await #expect(throws: RequestError.backgroundSession("org.kilo.tests.background")) {
                try await transport.send(TransportRequest(method: .get, url: url))
            }
        }
    #endif

    /// `Authorization` follows a redirect that stays on its origin, and no other.
    @Test func credentialsFollowARedirectOnlyOnTheSameOrigin() throws {
        var previous = URLRequest(url: url)
        previous.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        previous.setValue("a=1", forHTTPHeaderField: "Cookie")
        let sameOrigin = URLRequest(url: URL(string: "https://api.example.com/v2/items")!)
            .carryingCredentials(of: previous, redirectedFrom: url)
        #expect(sameOrigin?.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        var elsewhere = URLRequest(url: URL(string: "https://cdn.example.net/items")!)
        elsewhere.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        elsewhere.setValue("a=1", forHTTPHeaderField: "Cookie")
        let cleared = try #require(elsewhere.carryingCredentials(of: previous, redirectedFrom: url))
        #expect(cleared.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(cleared.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(cleared.url == elsewhere.url)
        let sameOriginWithUser = URLRequest(url: URL(string: "https://alice:pw@api.example.com/v2")!)
            .carryingCredentials(of: previous, redirectedFrom: url)
        #expect(sameOriginWithUser?.url?.user == "alice")
    }

    /// A redirect to another origin loses the user and password in its URL, percent-encoded as
    /// sent, even where they do not decode (`%FF`) and `URL.user` is `nil`.
    @Test(arguments: [
        "https://alice:pw@cdn.example.net/items?a=1",
        "https://alice@cdn.example.net/items?a=1",
        "https://:pw@cdn.example.net/items?a=1",
        "https://%FF@cdn.example.net/items?a=1",
        "https://a:%FF%FE@cdn.example.net/items?a=1",
    ])
    func aRedirectElsewhereLosesTheURLsUserInfo(location: String) throws {
        let redirected = URLRequest(url: try #require(URL(string: location)))
        let request = try #require(redirected.carryingCredentials(of: URLRequest(url: url), redirectedFrom: url))
        #expect(request.url?.absoluteString == "https://cdn.example.net/items?a=1")
    }

    /// A value with CR, LF or NUL never reaches the `URLRequest`, whatever the platform's
    /// `setValue(_:forHTTPHeaderField:)` would do with it.
    @Test func valuesWithLineBreaksOrNULAreLeftOut() {
        let request = URLRequest(
            TransportRequest(method: .get, url: url, headers: ["X-A": "1\r\nX-B: 2", "X-C": "a\u{0}b", "X-D": "ok"])
        )
        #expect(request.value(forHTTPHeaderField: "X-A") == nil)
        #expect(request.value(forHTTPHeaderField: "X-C") == nil)
        #expect(request.value(forHTTPHeaderField: "X-D") == "ok")
    }
}
