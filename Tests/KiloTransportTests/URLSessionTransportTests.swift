import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Integration tests: real requests from a real `URLSession` to httpbin on 127.0.0.1.
///
/// `Scripts/test.sh` starts httpbin and sets `KILO_HTTPBIN_URL`; without it the suite is skipped.
@Suite(
    .needs(.httpbin)
)
struct URLSessionTransportTests {
    /// One session for the whole suite: creating and invalidating sessions per request has been
    /// reported to crash in teardown on Linux.
    private static let session = URLSession(configuration: .ephemeral)
    /// A transport with a session of its own, which delivers completions on the session's work
    /// queue (on Linux): every test runs with both kinds.
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)

    /// Which session a test's transport uses.
    enum SessionMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case callersSession = "the caller's session"
        case ownSession = "a session of its own"

        var testDescription: String { rawValue }
    }

    private let baseURL: URL

    init() throws {
        baseURL = try LoopbackServer.httpbin.baseURL()
    }

    /// What httpbin says it received.
    private struct Echo: Decodable {
        var args: [String: String]
        var data: String?
        var headers: [String: String]

        /// The echoed request headers, looked up without regard to case.
        var requestHeaders: HTTPHeaders { HTTPHeaders(headers) }
    }

    private func transport(_ mode: SessionMode) -> URLSessionTransport {
        switch mode {
        case .callersSession: URLSessionTransport(session: Self.session)
        case .ownSession: Self.owningTransport
        }
    }

    private func url(_ pathAndQuery: String) throws -> URL {
        try #require(URL(string: pathAndQuery, relativeTo: baseURL)?.absoluteURL)
    }

    private func echo(of response: TransportResponse) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: response.body)
    }

    @Test(arguments: SessionMode.allCases)
    func getReturns200AndTheServerSeesTheQuery(mode: SessionMode) async throws {
        let response = try await transport(mode).send(
            TransportRequest(method: .get, url: url("get?name=Ann&n=1"), headers: ["X-Token": "abc"])
        )
        #expect(response.statusCode == 200)
        #expect(response.isSuccess)
        let echo = try echo(of: response)
        #expect(echo.args == ["name": "Ann", "n": "1"])
        #expect(echo.requestHeaders["x-token"] == "abc")
    }

    @Test(arguments: SessionMode.allCases)
    func dataBodyAndContentTypeArriveIntact(mode: SessionMode) async throws {
        let json = #"{"name":"Ann","tags":["a","b"],"note":"caf\u00e9 & +"}"#
        let response = try await transport(mode).send(
            TransportRequest(
                method: .post,
                url: url("post"),
                headers: ["Content-Type": "application/json; charset=utf-8", "X-Token": "abc"],
                body: .data(Data(json.utf8))
            )
        )
        #expect(response.statusCode == 200)
        let echo = try echo(of: response)
        #expect(echo.data == json)
        #expect(echo.requestHeaders["content-type"] == "application/json; charset=utf-8")
        #expect(echo.requestHeaders["content-length"] == String(json.utf8.count))
        #expect(echo.requestHeaders["x-token"] == "abc")
    }

    @Test(arguments: SessionMode.allCases)
    func dataBodyWithoutContentTypeArrivesAsOctetStream(mode: SessionMode) async throws {
        let response = try await transport(mode).send(
            TransportRequest(method: .put, url: url("put"), body: .data(Data("a=1&b=2".utf8)))
        )
        let echo = try echo(of: response)
        #expect(echo.data == "a=1&b=2")
        #expect(echo.requestHeaders["content-type"] == "application/octet-stream")
    }

    /// Also through a symbolic link, whose own size is not the file's: Linux's URLSession sent the
    /// link's length and as many bytes on your session, and spun forever on Kilo's own.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases, [false, true])
    func fileBodyIsStreamedWithItsLength(mode: SessionMode, throughALink: Bool) async throws {
        let size = 1 << 20
        var generator = SystemRandomNumberGenerator()
        var contents = Data(count: size)
        contents.withUnsafeMutableBytes { bytes in  // eight bytes at a time: cheap in a debug build
            for offset in stride(from: 0, to: size, by: 8) {
                bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-upload-\(UUID().uuidString).bin")
        try contents.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let link = file.appendingPathExtension("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        defer { try? FileManager.default.removeItem(at: link) }

        let response = try await transport(mode).send(
            TransportRequest(
                method: .post,
                url: url("post"),
                headers: ["Content-Type": "application/octet-stream"],
                body: .file(throughALink ? link : file)
            )
        )
        #expect(response.statusCode == 200)
        let echo = try echo(of: response)
        #expect(echo.requestHeaders["content-length"] == String(size))
        #expect(echo.requestHeaders["transfer-encoding"] == nil)
        // httpbin echoes a non-UTF-8 body as a base64 data URL.
        let prefix = "data:application/octet-stream;base64,"
        let data = try #require(echo.data)
        #expect(data.hasPrefix(prefix))
        let received = try #require(Data(base64Encoded: String(data.dropFirst(prefix.count))))
        #expect(received.count == size)
        #expect(received == contents)
    }

    @Test(arguments: SessionMode.allCases)
    func missingFileBodyThrowsURLError(mode: SessionMode) async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/kilo-\(UUID().uuidString).bin")
        await #expect(throws: URLError.self) {
            try await transport(mode).send(
                TransportRequest(
                    method: .post,
                    url: try url("post"),
                    headers: ["Content-Type": "application/octet-stream"],
                    body: .file(missing)
                )
            )
        }
    }

    /// Given a directory as an upload's file, Linux's URLSession sent nothing and waited for the
    /// whole timeout (60 s by default), then failed with `.timedOut`, which the default retry
    /// policy retries; the body is refused before anything is sent, as a missing file is.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases, [false, true])
    func directoryFileBodyFailsAtOnceWithFileDoesNotExist(mode: SessionMode, withProgress: Bool) async throws {
        let request = TransportRequest(
            method: .put,
            url: try url("put"),
            headers: ["Content-Type": "application/octet-stream"],
            body: .file(FileManager.default.temporaryDirectory),
            timeoutInterval: 60,
            progress: withProgress ? ProgressObserver { _ in } : nil
        )
        let started = ContinuousClock.now
        let error = await #expect(throws: URLError.self) {
            try await transport(mode).send(request)
        }
        #expect(error?.code == .fileDoesNotExist)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(ContinuousClock.now - started < .seconds(40))  // each request's timeout is 60 s
    }

    /// Linux's URLSession sent a named pipe or a device such as `/dev/zero` as an empty body, and
    /// reported success: both are refused before anything is sent.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func fileBodyThatIsNotARegularFileFailsAtOnce(mode: SessionMode) async throws {
        let pipe = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-body-\(UUID().uuidString).fifo")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: pipe) }
        for file in [pipe, URL(fileURLWithPath: "/dev/zero")] {
            let request = TransportRequest(
                method: .put,
                url: try url("put"),
                headers: ["Content-Type": "application/octet-stream"],
                body: .file(file),
                timeoutInterval: 30
            )
            let error = await #expect(throws: URLError.self) {
                try await transport(mode).send(request)
            }
            #expect(error?.code == .fileDoesNotExist)
        }
    }

    @Test(arguments: SessionMode.allCases, [404, 500, 503])
    func errorStatusIsReturnedNotThrown(mode: SessionMode, statusCode: Int) async throws {
        let response = try await transport(mode).send(TransportRequest(method: .get, url: url("status/\(statusCode)")))
        #expect(response.statusCode == statusCode)
        #expect(!response.isSuccess)
    }

    /// A 401 carries `WWW-Authenticate: Basic realm="Fake Realm"`. On Linux with Swift 6.3.1, a
    /// request whose session has no delegate to answer the challenge never completes, and its
    /// `timeoutInterval` does not end it; a watchdog cancels it after 50 s so the suite goes on.
    ///
    /// With a progress observer, a session of the transport's own drives the task through its
    /// delegate, which then answers the challenge.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases, [false, true])
    func unauthorizedWithChallengeIsReturnedNotThrown(mode: SessionMode, withProgress: Bool) async throws {
        let request = TransportRequest(
            method: .get,
            url: try url("status/401"),
            timeoutInterval: 5,
            progress: withProgress ? ProgressObserver { _ in } : nil
        )
        let transport = self.transport(mode)
        let started = ContinuousClock.now
        let task = Task { try await transport.send(request) }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(50))
            task.cancel()
        }
        defer { watchdog.cancel() }
        do {
            let response = try await task.value
            #expect(response.statusCode == 401)
            #expect(response.headers["www-authenticate"] == #"Basic realm="Fake Realm""#)
        } catch let error as URLError where error.code == .cancelled {
            Issue.record(
                """
                /status/401 gave no response in \(ContinuousClock.now - started) although timeoutInterval \
                is 5 s: the request hangs on the WWW-Authenticate challenge until cancelled
                """
            )
        }
    }

    /// Redirects are followed, relative and absolute. With a progress observer, a session of the
    /// transport's own drives the task through its delegate, which the session asks about each
    /// redirect on its work queue.
    @Test(arguments: SessionMode.allCases, [false, true])
    func redirectsAreFollowed(mode: SessionMode, withProgress: Bool) async throws {
        for path in ["redirect/2", "relative-redirect/1", "absolute-redirect/1"] {
            let request = TransportRequest(
                method: .get,
                url: try url(path),
                progress: withProgress ? ProgressObserver { _ in } : nil
            )
            let response = try await transport(mode).send(request)
            #expect(response.statusCode == 200, "\(path)")
            #expect(try echo(of: response).args.isEmpty)
        }
    }

    /// How a redirect test receives its response.
    enum Receiving: String, CaseIterable, Sendable {
        case inMemory = "in memory"
        case withProgress = "in memory, with progress"
        case toFile = "to a file"
    }

    /// A redirect to another origin (here `localhost` for `127.0.0.1`) does not take the
    /// credentials meant for the first one: `Authorization`, `Cookie` and `Proxy-Authorization`
    /// are dropped, as `AsyncHTTPClientTransport` drops them; other headers go on. Before the
    /// fix, Linux's URLSession sent them to whatever host the `Location` named. A redirect within
    /// the origin keeps them.
    @Test(arguments: SessionMode.allCases, Receiving.allCases)
    func aRedirectToAnotherOriginDropsCredentials(mode: SessionMode, receiving: Receiving) async throws {
        let port = try #require(baseURL.port)
        let headers: HTTPHeaders = [
            "Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic cHJveHk=",
            "X-Other": "kept",
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-redirect-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }  // Test clean-up only.
        for (target, keepsCredentials) in [("http://localhost:\(port)/headers", false), ("/headers", true)] {
            let query = "url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            let request = TransportRequest(
                method: .get,
                url: try url("redirect-to?\(query)"),
                headers: headers,
                    progress: receiving == .withProgress ? ProgressObserver { _ in } : nil
            )
            let response = try await transport(mode).send(
                request,
                consuming: receiving == .toFile ? .file(file) : .memory()
            )
            #expect(response.statusCode == 200)
            struct Headers: Decodable { var headers: [String: String] }
            let body = receiving == .toFile ? try Data(contentsOf: file) : response.body
            let received = HTTPHeaders(try JSONDecoder().decode(Headers.self, from: body).headers)
            #expect(received["X-Other"] == "kept")
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] {
                #expect((received[name] == headers[name]) == keepsCredentials, "\(name) after a redirect to \(target)")
            }
        }
    }

    /// The user and password of a URL stay on its origin too: a `//host/path` location, which
    /// Linux's URLSession resolved into a URL that kept them, does not send them to another host
    /// as Basic authentication (seen before the fix), even a user that does not decode (`%FF`).
    @Test(arguments: SessionMode.allCases, ["alice:pw123", "%FF"])
    func aRedirectToAnotherOriginDropsTheURLsUserInfo(mode: SessionMode, userInfo: String) async throws {
        let port = try #require(baseURL.port)
        let location = try #require(
            "//localhost:\(port)/headers".addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        )
        for status in [301, 302, 307] {
            let query = "status_code=\(status)&url=\(location)"
            let start = try #require(URL(string: "http://\(userInfo)@127.0.0.1:\(port)/redirect-to?\(query)"))
            let response = try await transport(mode).send(TransportRequest(method: .get, url: start))
            #expect(response.statusCode == 200)
            struct Headers: Decodable { var headers: [String: String] }
            let received = HTTPHeaders(try JSONDecoder().decode(Headers.self, from: response.body).headers)
            #expect(received["Host"] == "localhost:\(port)")
            #expect(received["Authorization"] == nil, "after a \(status)")
        }
    }

    #if canImport(FoundationNetworking)  // Apple's URLSession may refuse these before asking its delegate
        /// A `Location` that is not an `http` or `https` URL with a host and a valid port is not
        /// followed: the redirect's own response is the answer, as over `AsyncHTTPClientTransport`.
        /// Linux's URLSession requested `file:///etc/passwd` as a path on the redirected origin.
        @Test(.needs(.fault), arguments: SessionMode.allCases, [
            "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "http:///echo",
            "http://127.0.0.1:65536/echo",
        ])
        func aRedirectToAnythingButAnHTTPURLIsNotFollowed(mode: SessionMode, location: String) async throws {
            let query = try #require(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let url = try #require(URL(string: "redirect-to?url=\(query)", relativeTo: try LoopbackServer.fault.baseURL()))
            let response = try await transport(mode).send(TransportRequest(method: .get, url: url))
            #expect(response.statusCode == 302)
            #expect(response.headers["Location"] == location)
        }
    #endif

    /// A 301, 302 or 303 after a POST becomes a GET of the new location, as browsers and
    /// URLSession do, without the body's `Content-Type` (which Linux's URLSession sent on).
    @Test(arguments: SessionMode.allCases, [301, 302, 303])
    func aPostRedirectedBy30xIsFollowedWithAGet(mode: SessionMode, status: Int) async throws {
        let location = try #require("/get?from=post".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let query = "status_code=\(status)&url=\(location)"
        let response = try await transport(mode).send(
            TransportRequest(
                method: .post,
                url: url("redirect-to?\(query)"),
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: .data(Data("a=1".utf8))
            )
        )
        #expect(response.statusCode == 200)
        let echo = try echo(of: response)
        #expect(echo.args == ["from": "post"])
        #expect(echo.requestHeaders["content-type"] == nil)
        #expect(echo.requestHeaders["content-length"] == nil)
    }

    /// A `PUT`, `PATCH` or `DELETE` keeps its method on a 301 or 302 (only a `POST` becomes a
    /// `GET`), and becomes a `GET` on a 303: the rules `AsyncHTTPClientTransport` follows too.
    @Test(arguments: [HTTPMethod.put, .patch, .delete], [301, 302, 303])
    func otherMethodsKeepTheirMethodOn301And302(method: HTTPMethod, status: Int) async throws {
        let response = try await transport(.callersSession).send(
            TransportRequest(method: method, url: url("redirect-to?url=/anything&status_code=\(status)"))
        )
        struct Method: Decodable { var method: String }
        let echoed = try JSONDecoder().decode(Method.self, from: response.body).method
        #expect(echoed == (status == 303 ? "GET" : method.rawValue))
    }

    /// A caller's session and a transport's own session whose configurations set
    /// `timeoutIntervalForRequest` to 0.5 s, and a transport's own with an infinite one: made
    /// once, as sessions should be.
    private static let halfSecondSession = URLSession(configuration: configuration(timeout: 0.5))
    private static let halfSecondTransport = URLSessionTransport(configuration: configuration(timeout: 0.5))
    private static let unlimitedTransport = URLSessionTransport(configuration: configuration(timeout: .infinity))

    private static func configuration(timeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        return configuration
    }

    /// A request without a timeout of its own takes the session's `timeoutIntervalForRequest` as
    /// a request's timeout is taken: a fraction of a second rounded up to whole seconds, as Linux
    /// counts them, and, on a session of the transport's own, an infinite one meaning no limit.
    /// Linux's URLSession truncated 0.5 s to nothing, so every request timed out at once, and
    /// trapped on an infinite one (which it still does on a session of yours).
    @Test(arguments: SessionMode.allCases)
    func theSessionsRequestTimeoutIsRoundedUpAndMayBeInfinite(mode: SessionMode) async throws {
        let halfSecond: URLSessionTransport
        switch mode {
        case .callersSession:
            halfSecond = URLSessionTransport(session: Self.halfSecondSession)
        case .ownSession:
            halfSecond = Self.halfSecondTransport
            let unlimited = try await Self.unlimitedTransport.send(TransportRequest(method: .get, url: url("get")))
            #expect(unlimited.statusCode == 200)
        }
        // The server answers after 200 ms: within 1 s, but after 0.5 s truncated to nothing.
        let response = try await halfSecond.send(TransportRequest(method: .get, url: url("delay/0.2")))
        #expect(response.statusCode == 200)
    }

    /// A body kind for the redirect tests.
    enum BodyKind: String, CaseIterable, Sendable {
        case data, file
    }

    /// A redirect that keeps the method (any on a 307 or 308, a `PUT` on a 301 or 302) sends the
    /// body again, from memory or from its file, as Apple's URLSession and
    /// `AsyncHTTPClientTransport` do. Linux's URLSession sent the request again with an empty body,
    /// and the server took it as a request with no content.
    @Test(arguments: SessionMode.allCases, BodyKind.allCases)
    func aRedirectThatKeepsTheMethodSendsTheBodyAgain(mode: SessionMode, bodyKind: BodyKind) async throws {
        let payload = #"{"title":"Plan + test","count":3}"#
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-redirect-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let file = directory.appendingPathComponent("body.json")
        try Data(payload.utf8).write(to: file)
        let body: TransportRequest.Body = bodyKind == .data ? .data(Data(payload.utf8)) : .file(file)
        for (method, status) in [(HTTPMethod.post, 307), (.post, 308), (.put, 301), (.patch, 302), (.put, 307)] {
            let response = try await transport(mode).send(
                TransportRequest(
                    method: method,
                    url: url("redirect-to?url=%2Fanything%3Fhop%3D1&status_code=\(status)"),
                    headers: ["Content-Type": "application/json"],
                    body: body
                )
            )
            #expect(response.statusCode == 200)
            struct Anything: Decodable {
                var method: String
                var data: String
                var args: [String: String]
            }
            let echoed = try JSONDecoder().decode(Anything.self, from: response.body)
            #expect(echoed.method == method.rawValue, "\(method) after \(status)")
            #expect(echoed.args == ["hop": "1"], "\(method) after \(status)")
            #expect(echoed.data == payload, "\(method) after \(status)")
        }
    }

    @Test(arguments: SessionMode.allCases)
    func responseHeadersAreReadableInAnyCase(mode: SessionMode) async throws {
        let response = try await transport(mode).send(
            TransportRequest(method: .get, url: url("response-headers?X-Test=abc"))
        )
        #expect(response.statusCode == 200)
        #expect(response.headers["x-test"] == "abc")
        #expect(response.headers["X-TEST"] == "abc")
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
    }

    @Test(arguments: SessionMode.allCases)
    func cancellingTheTaskCancelsTheRequestPromptly(mode: SessionMode) async throws {
        // httpbin's /delay stops at 10 s; /drip waits 120 s before its one byte.
        let request = TransportRequest(method: .get, url: try url("drip?delay=120&numbytes=1&duration=0"))
        let transport = self.transport(mode)
        let started = ContinuousClock.now
        let task = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let error = await #expect(throws: URLError.self) {
            try await task.value
        }
        #expect(error?.code == .cancelled)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    /// Cancellation racing completion, many times over: every request ends, once, with its
    /// response or `URLError.cancelled`, and nothing deadlocks (Linux's `data(for:)` does, in
    /// this race: corelibs #5412).
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func cancellationRacingCompletionNeverHangs(mode: SessionMode) async throws {
        let transport = self.transport(mode)
        let request = TransportRequest(method: .get, url: try url("get"))
        let outcomes = await withTaskGroup(of: String.self, returning: [String: Int].self) { group in
            for index in 0..<300 {
                let task = Task { try await transport.send(request) }
                if index % 5 == 0 {
                    task.cancel()  // before it starts, or as it starts
                }
                group.addTask {
                    try? await Task.sleep(for: .microseconds(index % 7 * 300))
                    task.cancel()
                    do {
                        return try await task.value.statusCode == 200 ? "ok" : "status"
                    } catch let error as URLError where error.code == .cancelled {
                        return "cancelled"
                    } catch {
                        return "other: \(error)"
                    }
                }
            }
            return await group.reduce(into: [:]) { counts, outcome in counts[outcome, default: 0] += 1 }
        }
        #expect(outcomes.values.reduce(0, +) == 300)
        #expect(outcomes.keys.allSatisfy { $0 == "ok" || $0 == "cancelled" }, "\(outcomes)")
        #expect(outcomes["cancelled", default: 0] > 0, "the race was run: some requests were cancelled")
    }

    @Test(arguments: SessionMode.allCases)
    func taskCancelledBeforeSendingFailsAtOnce(mode: SessionMode) async throws {
        let request = TransportRequest(method: .get, url: try url("drip?delay=120&numbytes=1&duration=0"))
        let transport = self.transport(mode)
        let started = ContinuousClock.now
        let task = Task {
            // Cancelled during this sleep, so `send` starts in an already-cancelled task.
            try? await Task.sleep(for: .seconds(30))
            return try await transport.send(request)
        }
        task.cancel()
        let error = await #expect(throws: URLError.self) {
            try await task.value
        }
        #expect(error?.code == .cancelled)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test(arguments: SessionMode.allCases)
    func slowResponseTimesOut(mode: SessionMode) async throws {
        let error = await #expect(throws: URLError.self) {
            try await transport(mode).send(TransportRequest(method: .get, url: try url("delay/10"), timeoutInterval: 1))
        }
        #expect(error?.code == .timedOut)
    }

    @Test(arguments: SessionMode.allCases)
    func closedPortThrowsURLError(mode: SessionMode) async throws {
        let port = try Self.closedPort()
        let closedURL = try #require(URL(string: "http://127.0.0.1:\(port)/get"))
        let error = await #expect(throws: URLError.self) {
            try await transport(mode).send(TransportRequest(method: .get, url: closedURL))
        }
        #expect(error?.code == .cannotConnectToHost)
    }

    @Test(arguments: SessionMode.allCases, ["abc\r\nX-Injected: 1", "abc\n", "abc\r"])
    func headerValueWithLineBreakThrowsBeforeSending(mode: SessionMode, value: String) async throws {
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try await transport(mode).send(
                TransportRequest(method: .get, url: try url("get"), headers: ["X-Token": value])
            )
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound, then closed.
    private static func closedPort() throws -> UInt16 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }
}
