import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyRequestsTests {
    @Test(arguments: [HTTPMethod.get, .put, .patch, .delete, .head, .options])
    func argumentsGoInTheQueryStringExceptForPost(method: HTTPMethod) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(method, path: "items", arguments: ["b": "x y", "a": [1, 2]])
        let request = try #require(await transport.requests.first)
        #expect(request.method == method)
        #expect(request.url.absoluteString == "https://api.example.com/v1/items?a=1&a=2&b=x%20y")
        #expect(request.body == nil)
    }

    @Test func postArgumentsGoInAFormBody() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        try await makeProxy(transport).invoke(
            .post,
            path: "notes",
            arguments: ["text": "a+b&c", "when": date, "skip": WebServiceProxy.undefined]
        )
        let request = try #require(await transport.requests.first)
        #expect(request.url.absoluteString == "https://api.example.com/v1/notes")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(text(request) == "text=a%2Bb%26c&when=1700000000123")
    }

    @Test func multipartEncodingSendsPartsWithTheBoundaryInTheContentType() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.encoding = .multipartFormData
        try await proxy.invoke(.post, path: "upload", arguments: ["title": "Trip"])
        let request = try #require(await transport.requests.first)
        let contentType = try #require(request.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        #expect(
            text(request)
                == "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nTrip\r\n--\(boundary)--\r\n"
        )
    }

    @Test func postWithContentSendsArgumentsInTheQueryString() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(
            .post,
            path: "blobs",
            arguments: ["name": "a/b"],
            content: Data([1, 2, 3])
        )
        let request = try #require(await transport.requests.first)
        #expect(request.url.query == "name=a%2Fb")
        #expect(request.body == .data(Data([1, 2, 3])))
        #expect(request.headers["Content-Type"] == "application/octet-stream")
    }

    @Test func contentKeepsItsContentType() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(.put, path: "doc", content: Data("hi".utf8), contentType: "text/plain")
        #expect(await transport.requests.first?.headers["Content-Type"] == "text/plain")
    }

    @Test func encodableBodyIsSentAsJSONWithMillisecondDates() async throws {
        let transport = FakeTransport(statusCode: 200, body: #"{"name":"Ann","born":1700000000123}"#)
        let person = Person(name: "Ann", born: Date(timeIntervalSince1970: 1_700_000_000.123))
        let echoed: Person = try await makeProxy(transport).invoke(
            .post,
            path: "people",
            arguments: ["notify": true],
            body: person
        )
        let request = try #require(await transport.requests.first)
        #expect(echoed == person)
        #expect(request.url.query == "notify=true")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Accept"] == "application/json")
        let body = try #require(try request.bodyData())
        let sent = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(sent?["born"] as? Double == 1_700_000_000_123)
    }

    @Test func argumentsAreAppendedToAQueryInThePath() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(.get, path: "search?lang=en", arguments: ["q": "kilo"])
        #expect(
            await transport.requests.first?.url.absoluteString == "https://api.example.com/v1/search?lang=en&q=kilo"
        )
    }

    /// A query whose last value ends with `?` (allowed in a query) is not an empty query: the
    /// arguments still need their `&`, or the first one joins that value.
    @Test(arguments: [
        ("search?q=why?", "search?q=why?&page=2"), ("search?", "search?page=2"), ("search?a=b&", "search?a=b&page=2"),
    ])
    func argumentsAfterAQueryEndingWithAQuestionMarkGetTheirSeparator(path: String, expected: String) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(.get, path: path, arguments: ["page": 2])
        #expect(await transport.requests.first?.url.absoluteString == "https://api.example.com/v1/" + expected)
    }

    @Test func absolutePathsReplaceTheBasePath() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(.get, path: "/health")
        #expect(await transport.requests.first?.url.absoluteString == "https://api.example.com/health")
    }

    @Test func headersAndTimeoutAreSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.headers = ["X-Token": "abc", "Accept-Language": "fr"]
        proxy.timeoutInterval = 7
        try await proxy.invoke(.get, path: "me")
        let request = try #require(await transport.requests.first)
        #expect(request.headers["x-token"] == "abc")
        #expect(request.headers["accept-language"] == "fr")
        #expect(request.timeoutInterval == 7)
    }

    @Test func aHeaderWithALineBreakIsRejectedAndNothingIsSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.headers = ["X-Token": "abc\r\nX-Admin: true"]
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try await proxy.invoke(.get, path: "me")
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func anEmptyKeyIsRejectedAndNothingIsSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        await #expect(throws: ArgumentEncodingError.emptyKey) {
            try await makeProxy(transport).invoke(.post, path: "notes", arguments: ["": "x"])
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func anUnsupportedValueIsRejectedAndNothingIsSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        await #expect(throws: ArgumentEncodingError.unsupportedValue("filter", type: "Dictionary<String, Int>")) {
            try await makeProxy(transport).invoke(.get, path: "notes", arguments: ["filter": ["a": 1]])
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test(arguments: ["http://[::1", "ftp://example.com/file", "mailto:someone@example.com"])
    func anInvalidPathIsRejectedAndNothingIsSent(path: String) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        await #expect(throws: RequestError.invalidPath(path)) {
            try await makeProxy(transport).invoke(.get, path: path)
        }
        #expect(await transport.requests.isEmpty)
    }

    /// Paths, plain and not, that must resolve exactly as `URL(string:relativeTo:)` resolves
    /// them, whichever route the proxy takes.
    static let pathsToResolve = [
        "", "items", "items/42", "a.json", "v2/items/", "...", "a..b/c", "~user/x", "a@b", "x;y=1",
        "!$&'()*+,;=", "./items", "../items", "a/./b", "a/../b", "a/..", ".", "..", "/root", "//other.example/x",
        "items?q=1", "items#top", "caf%C3%A9", "https://elsewhere.example/x", "a:b", "a b", "é",
    ]

    /// Base URLs: two that take the quick route for plain paths, and others that never may
    /// (no trailing `/`, dot segments).
    static let basesToResolveAgainst = [
        "https://api.example.com/v1/", "http://127.0.0.1:8080/", "https://api.example.com/v1",
        "https://api.example.com", "https://h.example/a/../b/", "https://h.example/./", "http://[::1]:8080/a/",
    ]

    /// Every path resolves as `URL(string:relativeTo:)` resolves it, but the empty one, which
    /// `URL(string:)` refuses and RFC 3986 resolves to the base itself; one that leads to another
    /// origin does so only when the proxy allows it.
    @Test(arguments: basesToResolveAgainst, pathsToResolve)
    func pathsResolveAsURLResolvesThem(base: String, path: String) async throws {
        let baseURL = try #require(URL(string: base))
        let expected =
            path.isEmpty
            ? URL(string: String(base.split(separator: "#", omittingEmptySubsequences: false)[0]))
            : URL(string: path, relativeTo: baseURL)?.absoluteURL
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
        // Twice: the second time, a plain path's URL comes from the resolver's recent paths.
        if let expected, expected.scheme == "http" || expected.scheme == "https", expected.host?.isEmpty == false {
            let leaves =
                expected.scheme != baseURL.scheme || expected.host != baseURL.host || expected.port != baseURL.port
                || expected.user != baseURL.user
            if leaves {
                await #expect(throws: RequestError.pathLeavesBaseURL(path)) {
                    try await proxy.invoke(.get, path: path)
                }
                #expect(await transport.requests.isEmpty)
                proxy.allowsAbsoluteURLs = true
            }
            try await proxy.invoke(.get, path: path)
            try await proxy.invoke(.get, path: path)
            let sent = await transport.requests.map(\.url.absoluteString)
            #expect(sent == [expected.absoluteString, expected.absoluteString])
        } else {
            await #expect(throws: RequestError.invalidPath(path)) { try await proxy.invoke(.get, path: path) }
            await #expect(throws: RequestError.invalidPath(path)) { try await proxy.invoke(.get, path: path) }
        }
    }

    // MARK: The empty path

    /// An upload endpoint is often the base URL itself (`https://upload.example.com/files`).
    @Test func theEmptyPathIsTheBaseURLItself() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let base = try #require(URL(string: "https://upload.example.com/files"))
        let proxy = WebServiceProxy(baseURL: base, transport: transport)
        try await proxy.invoke(.get, path: "")
        try await proxy.invoke(.get, path: "", arguments: ["name": "a b"])
        try await proxy.invoke(.post, path: "", arguments: ["name": "a b"])
        let sent = await transport.requests.map(\.url.absoluteString)
        #expect(
            sent == [
                "https://upload.example.com/files", "https://upload.example.com/files?name=a%20b",
                "https://upload.example.com/files",
            ]
        )
        #expect(text(await transport.requests.last) == "name=a%20b")
    }

    @Test func theEmptyPathKeepsTheBaseURLsQueryAndDropsItsFragment() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let base = try #require(URL(string: "HTTPS://upload.example.com/files?token=t1#part"))
        let proxy = WebServiceProxy(baseURL: base, transport: transport)
        try await proxy.invoke(.get, path: "")
        try await proxy.invoke(.put, path: "", arguments: ["n": 2])
        let sent = await transport.requests.map(\.url.absoluteString)
        #expect(sent == ["https://upload.example.com/files?token=t1", "https://upload.example.com/files?token=t1&n=2"])
    }

    @Test func theEmptyPathOfABaseURLThatIsNoHTTPURLIsInvalid() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = WebServiceProxy(baseURL: try #require(URL(string: "ftp://example.com/")), transport: transport)
        await #expect(throws: RequestError.invalidPath("")) { try await proxy.invoke(.get, path: "") }
        #expect(await transport.requests.isEmpty)
    }

    // MARK: Paths that leave the base URL

    /// Paths that would carry the proxy's `Authorization` to another scheme, host or port, or
    /// with user info (as CVE-2025-27152 did in axios).
    static let pathsThatLeave = [
        "//other.example/x", "//other.example", "http://other.example:8080/x", "https://other.example/v1/",
        "http://api.example.com/v1/x", "https://api.example.com:8443/v1/x", "http://api@api.example.com/v1/x",
        "https://api@api.example.com/v1/x", "https://api:secret@api.example.com/v1/x", "https://:x@api.example.com/",
        "//api.example.com.other.example/x", "https://api.example.com@other.example/x",
        "https://%FF@api.example.com/v1/x", "https://:%FF@api.example.com/v1/x", "//api%2Eexample.com/v1/x",
    ]

    @Test(arguments: pathsThatLeave)
    func aPathThatLeavesTheBaseURLIsRejectedAndNothingIsSent(path: String) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.headers["Authorization"] = "Bearer secret"
        await #expect(throws: RequestError.pathLeavesBaseURL(path)) { try await proxy.invoke(.get, path: path) }
        await #expect(throws: RequestError.pathLeavesBaseURL(path)) {
            let _: [Int] = try await proxy.invoke(.post, path: path, body: [1])
        }
        let outcome = await result { proxy.invoke(.get, path: path, resultHandler: $0) }
        #expect(throws: RequestError.pathLeavesBaseURL(path)) { try outcome.get() }
        #expect(await transport.requests.isEmpty)
    }

    @Test(arguments: pathsThatLeave)
    func aProxyThatAllowsAbsoluteURLsSendsThem(path: String) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.allowsAbsoluteURLs = true
        try await proxy.invoke(.get, path: path)
        let expected = URL(string: path, relativeTo: baseURL)?.absoluteURL.absoluteString
        #expect(await transport.requests.map(\.url.absoluteString) == [expected])
        #expect(proxy.withTimeout(3).allowsAbsoluteURLs)
    }

    /// The base URL's own origin, spelled with another case or with its default port, or an
    /// absolute URL on it, is no other origin.
    @Test(arguments: [
        ("https://API.Example.com/v1/x", "https://API.Example.com/v1/x"),
        ("https://api.example.com:443/v2/x", "https://api.example.com:443/v2/x"),
        ("//api.example.com/v2/x", "https://api.example.com/v2/x"),
        ("HTTPS://api.example.com/x", "https://api.example.com/x"),
    ])
    func anAbsoluteURLOnTheBaseURLsOriginIsSent(path: String, sent: String) async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        try await makeProxy(transport).invoke(.get, path: path)
        #expect(await transport.requests.map(\.url.absoluteString) == [sent])
    }

    @Test func aBaseURLWithUserInfoKeepsItForRelativePathsOnly() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let base = try #require(URL(string: "https://me:pw@api.example.com/v1/"))
        let proxy = WebServiceProxy(baseURL: base, transport: transport)
        try await proxy.invoke(.get, path: "/x")
        await #expect(throws: RequestError.pathLeavesBaseURL("https://api.example.com/x")) {
            try await proxy.invoke(.get, path: "https://api.example.com/x")
        }
        #expect(await transport.requests.map(\.url.absoluteString) == ["https://me:pw@api.example.com/x"])
    }

    @Test func manyMorePathsThanTheResolverRemembersEachGoWhereTheyShould() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = WebServiceProxy(
            baseURL: try #require(URL(string: "https://api.example.com/v1/")),
            transport: transport
        )
        let paths = (0..<200).map { "items/\($0)" }
        for path in paths + paths.reversed() {
            try await proxy.invoke(.get, path: path)
        }
        let sent = await transport.requests.map(\.url.absoluteString)
        #expect(sent == (paths + paths.reversed()).map { "https://api.example.com/v1/" + $0 })
    }

    /// Swift compares strings by canonical equivalence: `"\u{212A}"` (KELVIN SIGN) equals `"K"`, and
    /// `"\u{37E}"` (GREEK QUESTION MARK) equals `";"`. A path that only looks like a remembered one
    /// must still go to its own URL.
    @Test(arguments: [("Kelvin", "\u{212A}elvin"), ("a;b", "a\u{37E}b")])
    func aPathCanonicallyEqualToARememberedOneGoesToItsOwnURL(remembered: String, lookalike: String) async throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = WebServiceProxy(baseURL: base, transport: transport)
        try await proxy.invoke(.get, path: remembered)
        try await proxy.invoke(.get, path: lookalike)
        let sent = await transport.requests.map(\.url.absoluteString)
        let expected = [remembered, lookalike].map { URL(string: $0, relativeTo: base)?.absoluteURL.absoluteString }
        #expect(sent == expected)
        #expect(sent.last?.contains("%") == true)
    }

    @Test func aFileInAFormIsRejected() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        await #expect(throws: ArgumentEncodingError.fileNotAllowed("doc")) {
            try await makeProxy(transport).invoke(
                .post,
                path: "upload",
                arguments: ["doc": URL(fileURLWithPath: "/tmp/a.txt")]
            )
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func aNonFiniteNumberInAJSONBodyThrowsAndNothingIsSent() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        await #expect(throws: EncodingError.self) {
            try await makeProxy(transport).invoke(.post, path: "values", body: [Double.nan])
        }
        #expect(await transport.requests.isEmpty)
    }
}
