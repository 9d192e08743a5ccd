import Foundation
import Kilo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bad input gives a clear typed error and sends nothing.
///
/// Every call goes through the facade to the fault server with a `key` no other test uses in its
/// query string; `/count` then shows that no request with that key arrived.
/// ``requestsWithAKeyInThePathAreCounted()`` shows that the same calls with good input do.
@Suite(
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(1))
)
struct BadInputTests {
    private let proxy: WebServiceProxy
    private let key: String

    init() throws {
        let proxy = try FaultServer.proxy()
        proxy.callbackQueue = CallbackQueues.make("bad-input")
        self.proxy = proxy
        key = FaultServer.makeKey("bad-input")
    }

    /// A path on the fault server whose requests are counted under ``key``.
    private var countedPath: String { "echo?key=\(key)" }

    private func expectNothingSent(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await FaultServer.count(key) == 0, "a request reached the server", sourceLocation: sourceLocation)
    }

    /// Checks that an `async` call and a callback call (with an argument) both fail with `error`
    /// at once, and that nothing reached the server.
    private func expectRejection(
        _ error: RequestError,
        by proxy: WebServiceProxy? = nil,
        asyncMethod: HTTPMethod = .get,
        callbackMethod: HTTPMethod = .post,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let proxy = proxy ?? self.proxy
        await #expect(throws: error, sourceLocation: sourceLocation) {
            try await proxy.invoke(asyncMethod, path: countedPath)
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(callbackMethod, path: countedPath, arguments: ["a": 1], resultHandler: $0)
        }
        #expect(outcome.task == nil, sourceLocation: sourceLocation)
        #expect(outcome.error as? RequestError == error, sourceLocation: sourceLocation)
        try await expectNothingSent(sourceLocation: sourceLocation)
    }

    // MARK: Control

    @Test func requestsWithAKeyInThePathAreCounted() async throws {
        try await proxy.invoke(.get, path: countedPath, arguments: ["a": 1])
        try await proxy.invoke(.post, path: countedPath, arguments: ["a": 1])
        proxy.encoding = .multipartFormData
        try await proxy.invoke(.post, path: countedPath, arguments: ["a": 1])
        try await proxy.invoke(.post, path: countedPath, body: ["x": 1.5])
        #expect(try await FaultServer.count(key) == 4)
    }

    // MARK: Headers

    @Test(arguments: ["X-Bad\r\nInjected", "X-Bad\nInjected", "X-Bad\rInjected", "", "X Bad", "X-Bad:", "X-Bäd"])
    func invalidHeaderNameIsRejected(name: String) async throws {
        proxy.headers = [name: "1"]
        try await expectRejection(.invalidHeaderName(name))
    }

    @Test(arguments: ["a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rb", "a\u{0}b", "\r\n"])
    func headerValueWithLineBreakIsRejected(value: String) async throws {
        proxy.headers = ["X-Token": value]
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try await proxy.invoke(.get, path: countedPath)
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: countedPath, arguments: ["a": 1], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? RequestError == .invalidHeaderValue("X-Token"))
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("never")
            try await proxy.download(path: countedPath, to: destination)
        }
        try await expectNothingSent()
    }

    /// A header value of 1 MiB failed deep in Linux's URLSession as "out of memory"
    /// (`URLError.unknown`); now it is a typed error before anything is sent.
    @Test func oversizedHeaderFieldsAreRejectedBeforeAnythingIsSent() async throws {
        proxy.headers = ["X-Huge": String(repeating: "a", count: 1 << 20)]
        try await expectRejection(.headersTooLarge("X-Huge"))
    }

    // MARK: Paths that leave the base URL

    /// The fault server's host and port, as a path's authority.
    private func faultAuthority() throws -> String {
        let url = try #require(FaultServer.url)
        return "\(try #require(url.host)):\(try #require(url.port))"
    }

    /// A path that names another host or port, or user info, would carry the proxy's
    /// `Authorization` there (CVE-2025-27152 in axios): it fails, and nothing reaches the fault
    /// server, whether it is another server's port or the base URL's own under another name.
    @Test func pathsThatLeaveTheBaseURLAreRejected() async throws {
        let authority = try faultAuthority()
        let port = try #require(FaultServer.url?.port)
        let sample = try Servers.sampleProxy()
        sample.callbackQueue = CallbackQueues.make("bad-input")
        for proxy in [sample, proxy] {
            proxy.headers["Authorization"] = "Bearer secret"
        }
        let cases = [
            (sample, "//\(authority)/\(countedPath)"),
            (sample, "http://\(authority)/\(countedPath)"),
            (sample, "http://api@\(authority)/\(countedPath)"),
            (proxy, "http://api@\(authority)/\(countedPath)"),
            (proxy, "http://api:secret@\(authority)/\(countedPath)"),
            (proxy, "//localhost:\(port)/\(countedPath)"),
        ]
        for (proxy, path) in cases {
            await #expect(throws: RequestError.pathLeavesBaseURL(path)) {
                try await proxy.invoke(.get, path: path)
            }
            let outcome: CallbackOutcome<Void> = try await callback {
                proxy.invoke(.post, path: path, arguments: ["a": 1], resultHandler: $0)
            }
            #expect(outcome.task == nil)
            #expect(outcome.error as? RequestError == .pathLeavesBaseURL(path))
        }
        try await expectNothingSent()
    }

    /// With `allowsAbsoluteURLs`, a proxy follows an absolute URL to another server, headers and all.
    @Test func aProxyThatAllowsAbsoluteURLsFollowsThem() async throws {
        let sample = try Servers.sampleProxy()
        sample.headers["Authorization"] = "Bearer secret"
        sample.allowsAbsoluteURLs = true
        try await sample.invoke(.get, path: "http://\(try faultAuthority())/\(countedPath)")
        let counted: AuthorizedCount = try await proxy.invoke(.get, path: "count", arguments: ["key": key])
        #expect(counted.count == 1)
        #expect(counted.authorized == 1)
    }

    /// `/count`'s answer: the requests counted under a key, and how many had `Authorization`.
    private struct AuthorizedCount: Decodable {
        var count: Int
        var authorized: Int
    }

    // MARK: Bodies that are not JSON

    private struct Price: Encodable {
        var dec: Decimal
    }

    /// `JSONEncoder` writes a `Decimal` that is not a number as a bare `NaN`; the body
    /// `{"dec":NaN}` must not go out.
    @Test func aDecimalNaNBodyIsRejected() async throws {
        let error = await #expect(throws: EncodingError.self) {
            try await proxy.invoke(.post, path: countedPath, body: Price(dec: .nan))
        }
        guard case .invalidValue(_, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["dec"])
        #expect(throws: EncodingError.self) {
            try proxy.invoke(.put, path: countedPath, body: [Price(dec: Decimal(1) / Decimal(0))]) { _ in }
        }
        try await expectNothingSent()
    }

    // MARK: Multipart names

    @Test func quotesInMultipartNamesAreSentAsPercent22() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("hi".utf8), named: "q\"uote.txt")
        proxy.encoding = .multipartFormData
        let raw: Data = try await proxy.invoke(
            .post, path: countedPath, arguments: ["a\"b": "x", "d\"oc": file],
            responseHandler: { content, _ in content })
        let body = String(decoding: raw, as: UTF8.self)
        #expect(body.contains("Content-Disposition: form-data; name=\"a%22b\"\r\n"))
        #expect(body.contains("Content-Disposition: form-data; name=\"d%22oc\"; filename=\"q%22uote.txt\"\r\n"))
        #expect(!body.contains("a\"b"))
        #expect(!body.contains("q\"uote"))

        // A server that decodes %22 as browsers send it (Werkzeug, here) gets the names back.
        let sample = try Servers.sampleProxy()
        sample.encoding = .multipartFormData
        let echo: MultipartEcho = try await sample.invoke(
            .post, path: "echo/multipart", arguments: ["a\"b": "x", "d\"oc": file])
        #expect(echo.form == ["a\"b": ["x"]])
        #expect(echo.files["d\"oc"]?.map(\.filename) == ["q\"uote.txt"])
        #expect(echo.files["d\"oc"]?.map(\.size) == [2])
    }

    /// A server reads a name as an RFC 9110 quoted string, where a backslash escapes the next
    /// character: sent raw, one at the end of a file name made Werkzeug take the file for a text
    /// field, and one at the end of a name made it drop the part.
    @Test func backslashesInMultipartNamesArriveIntact() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("hi".utf8), named: "back\\slash\\")
        let sample = try Servers.sampleProxy()
        sample.encoding = .multipartFormData
        let echo: MultipartEcho = try await sample.invoke(
            .post, path: "echo/multipart", arguments: ["a\\": "x", "b\\\\c": "y", "d\\": file])
        #expect(echo.form == ["a\\": ["x"], "b\\\\c": ["y"]])
        #expect(echo.files["d\\"]?.map(\.filename) == ["back\\slash\\"])
        #expect(echo.files["d\\"]?.map(\.size) == [2])
    }

    /// A standalone `KiloEncoding` user may choose a boundary with characters RFC 2046 allows but
    /// a header token does not; the encoder's `contentType` must still name it whole.
    @Test(arguments: ["a:b", "my boundary", "(x)=?"])
    func multipartBodyWithAnyValidBoundaryIsParsed(boundary: String) async throws {
        let sample = try #require(Servers.sample)
        let encoder = MultipartEncoder(boundary: boundary)
        var request = URLRequest(url: sample.appendingPathComponent("echo/multipart"))
        request.httpMethod = "POST"
        request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = try encoder.encode(["k": "v"])
        let (data, _) = try await Servers.session.data(for: request)
        let echo = try JSONDecoder().decode(MultipartEcho.self, from: data)
        #expect(echo.form == ["k": ["v"]])
    }

    @Test(arguments: ["a\r\nb", "a\nb", "a\rb", "a\r\nContent-Type: text/html"])
    func lineBreakInMultipartNameIsRejected(name: String) async throws {
        proxy.encoding = .multipartFormData
        await #expect(throws: ArgumentEncodingError.lineBreakInName(name)) {
            try await proxy.invoke(.post, path: countedPath, arguments: [name: "x"])
        }
        try await expectNothingSent()
    }

    @Test(arguments: ["line\nbreak.txt", "line\rbreak.txt", "line\r\nbreak.txt"])
    func lineBreakInMultipartFileNameIsRejected(fileName: String) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("hi".utf8), named: fileName)
        proxy.encoding = .multipartFormData
        await #expect(throws: ArgumentEncodingError.lineBreakInName("doc")) {
            try await proxy.invoke(.post, path: countedPath, arguments: ["doc": file])
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: countedPath, arguments: ["doc": file], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? ArgumentEncodingError == .lineBreakInName("doc"))
        try await expectNothingSent()
    }

    /// Files above ``WebServiceProxy/multipartMemoryLimit`` are streamed from a temporary file,
    /// written only when the request is sent; their names are still checked up front.
    @Test func lineBreakInALargeMultipartFileNameIsRejectedUpFront() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1), named: "big\r\nfile.bin")
        proxy.encoding = .multipartFormData
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: countedPath, arguments: ["doc": file], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? ArgumentEncodingError == .lineBreakInName("doc"))
        try await expectNothingSent()
    }

    // MARK: Empty keys

    @Test(arguments: [
        (HTTPMethod.get, WebServiceProxy.Encoding.applicationXWWWFormURLEncoded),
        (.delete, .applicationXWWWFormURLEncoded),
        (.post, .applicationXWWWFormURLEncoded),
        (.post, .multipartFormData),
    ])
    func emptyKeyIsRejected(method: HTTPMethod, encoding: WebServiceProxy.Encoding) async throws {
        proxy.encoding = encoding
        await #expect(throws: ArgumentEncodingError.emptyKey) {
            try await proxy.invoke(method, path: countedPath, arguments: ["": "x", "good": 1])
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(method, path: countedPath, arguments: ["": "x"], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? ArgumentEncodingError == .emptyKey)
        try await expectNothingSent()
    }

    // MARK: Unreadable files

    private func expectUnreadable(_ file: URL) async throws {
        proxy.encoding = .multipartFormData
        let error = await #expect(throws: ArgumentEncodingError.self) {
            try await proxy.invoke(.post, path: countedPath, arguments: ["doc": file, "title": "t"])
        }
        #expect(error?.isUnreadableFile == true)
        #expect(error?.key == "doc")
        #expect(error?.fileURL == file)
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: countedPath, arguments: ["doc": file], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect((outcome.error as? ArgumentEncodingError)?.isUnreadableFile == true)
        try await expectNothingSent()
    }

    @Test func missingFileIsRejected() async throws {
        let directory = try TemporaryDirectory()
        try await expectUnreadable(directory.url.appendingPathComponent("missing.txt"))
    }

    @Test func directoryIsRejected() async throws {
        let directory = try TemporaryDirectory()
        let subdirectory = directory.url.appendingPathComponent("folder", isDirectory: true)
        try FileManager.default.createDirectory(at: subdirectory, withIntermediateDirectories: false)
        try await expectUnreadable(subdirectory)
    }

    /// A device is not a file part: `/dev/zero` would be read until memory ran out. `/dev/null`
    /// stands in for it here, since it ends at once if it is read.
    @Test func deviceIsRejected() async throws {
        try await expectUnreadable(URL(fileURLWithPath: "/dev/null"))
    }

    /// A device beside a file large enough to be streamed is rejected when `invoke` is called.
    @Test func deviceBesideALargeFileIsRejectedUpFront() async throws {
        let directory = try TemporaryDirectory()
        let large = try directory.write(Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1), named: "large.bin")
        let device = URL(fileURLWithPath: "/dev/null")
        proxy.encoding = .multipartFormData
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: countedPath, arguments: ["a": large, "b": device], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect((outcome.error as? ArgumentEncodingError)?.fileURL == device)
        try await expectNothingSent()
    }

    // CI runs the tests as root, which reads a mode-000 file anyway, so there is nothing to test there.
    @Test(.disabled(if: getuid() == 0, "root can read a file with mode 000"))
    func fileWithoutReadPermissionIsRejected() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data("secret".utf8), named: "secret.txt")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        try await expectUnreadable(file)
    }

    // MARK: Paths

    @Test(arguments: [
        "ftp://127.0.0.1/x", "file:///etc/passwd", "http://", "https:///no-host", "javascript:alert(1)",
        "mailto:a@example.com", "http://[::1", "http://exa mple.com/", "http:no-slashes",
    ])
    func invalidPathIsRejected(path: String) async throws {
        await #expect(throws: RequestError.invalidPath(path)) {
            try await proxy.invoke(.get, path: path, arguments: ["key": key])
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.post, path: path, arguments: ["key": key], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? RequestError == .invalidPath(path))
        try await expectNothingSent()
    }

    // MARK: Methods and timeouts

    /// A method goes on the request line as it is: one with a space or a line break would
    /// rewrite the request.
    @Test(arguments: ["GET /evil HTTP/1.1\r\nX-Injected: 1\r\nX-Pad:", "", "GET X"])
    func methodThatIsNotATokenIsRejected(name: String) async throws {
        let method = HTTPMethod(rawValue: name)
        try await expectRejection(.invalidMethod(method.rawValue), asyncMethod: method, callbackMethod: method)
    }

    /// URLSession fails a `GET` with a body with a misleading `URLError.dataLengthExceedsMaximum`
    /// ("resource exceeds maximum size"), on every platform, and on Linux sends a `HEAD` without
    /// its body (with its `Content-Type`); Kilo refuses both first, over any transport.
    @Test func getOrHeadWithABodyIsRejected() async throws {
        await #expect(throws: RequestError.bodyNotAllowed("HEAD")) {
            try await proxy.invoke(.head, path: countedPath, content: Data("x".utf8))
        }
        await #expect(throws: RequestError.bodyNotAllowed("GET")) {
            try await proxy.invoke(.get, path: countedPath, content: Data("x".utf8))
        }
        await #expect(throws: RequestError.bodyNotAllowed("GET")) {
            let _: [String: Int] = try await proxy.invoke(.get, path: countedPath, body: ["x": 1])
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.get, path: countedPath, content: Data("x".utf8), resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? RequestError == .bodyNotAllowed("GET"))
        try await expectNothingSent()
        try await proxy.invoke(.get, path: countedPath, content: Data())
        #expect(try await FaultServer.count(key) == 1)
    }

    @Test(arguments: [0, -1, .nan] as [TimeInterval])
    func timeoutThatIsNotPositiveIsRejected(timeout: TimeInterval) async throws {
        try await expectRejection(.invalidTimeout(timeout), by: proxy.withTimeout(timeout))
    }

    /// An endless timeout is sent as a long one: Linux's URLSession traps on one beyond what it
    /// counts in milliseconds.
    @Test(arguments: [TimeInterval.infinity, .greatestFiniteMagnitude])
    func endlessTimeoutMeansNoLimit(timeout: TimeInterval) async throws {
        try await proxy.withTimeout(timeout).invoke(.get, path: countedPath)
        #expect(try await FaultServer.count(key) == 1)
    }

    // MARK: Non-finite numbers

    @Test(arguments: [Double.nan, .infinity, -.infinity, .signalingNaN])
    func nonFiniteNumberInAJSONBodyIsRejected(number: Double) async throws {
        await #expect(throws: EncodingError.self) {
            try await proxy.invoke(.post, path: countedPath, body: ["x": number])
        }
        await #expect(throws: EncodingError.self) {
            let _: [String: Double] = try await proxy.invoke(.put, path: countedPath, body: Reading(value: number))
        }
        // The callback variant throws at once, before it starts anything.
        let handlerCalls = Protected(0)
        #expect(throws: EncodingError.self) {
            try proxy.invoke(.post, path: countedPath, body: Reading(value: number)) { (_: Result<Void, any Error>) in
                handlerCalls.withLock { $0 += 1 }
            }
        }
        #expect(throws: EncodingError.self) {
            try proxy.invoke(.post, path: countedPath, body: [number]) { (_: Result<[Double], any Error>) in
                handlerCalls.withLock { $0 += 1 }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(handlerCalls.current == 0)
        try await expectNothingSent()
    }

    @Test(arguments: [
        (HTTPMethod.get, WebServiceProxy.Encoding.applicationXWWWFormURLEncoded),
        (.post, .applicationXWWWFormURLEncoded),
        (.post, .multipartFormData),
    ])
    func nonFiniteNumberArgumentIsRejected(method: HTTPMethod, encoding: WebServiceProxy.Encoding) async throws {
        proxy.encoding = encoding
        let values: [any Sendable] = [
            Double.nan, Double.infinity, -Double.infinity, Float.nan, Float.infinity, [1.0, Double.nan],
        ]
        for value in values {
            await #expect(throws: ArgumentEncodingError.nonFiniteNumber("n")) {
                try await proxy.invoke(method, path: countedPath, arguments: ["n": value, "ok": 1])
            }
        }
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(method, path: countedPath, arguments: ["n": Double.nan], resultHandler: $0)
        }
        #expect(outcome.task == nil)
        #expect(outcome.error as? ArgumentEncodingError == .nonFiniteNumber("n"))
        try await expectNothingSent()
    }
}

/// A JSON body with a number in it.
private struct Reading: Encodable {
    var value: Double
}
