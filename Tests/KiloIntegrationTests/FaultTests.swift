import Foundation
import Kilo
import Testing

/// Real failures from the fault server on 127.0.0.1 (`Service/fault_server.py`): each gives the
/// right typed error or the right value, and nothing crashes or hangs.
///
/// Requests that the server counts carry a `key` no other test uses, so `/count` tells how many
/// attempts reached the server.
@Suite(
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(2))
)
struct FaultTests {
    private let clock = ContinuousClock()

    private static func retrying(_ policy: RetryPolicy) -> (any Transport) -> any Transport {
        { RetryingTransport($0, policy: policy) }
    }

    /// Counts the requests it is given to send, whether or not they reach the server.
    private struct CountingTransport: Transport {
        let base: any Transport
        let count: Protected<Int>

        func stream(_ request: TransportRequest) async throws -> StreamedResponse {
            count.withLock { $0 += 1 }
            return try await base.stream(request)
        }
    }

    // MARK: Broken responses

    @Test func connectionDroppedMidResponseGivesURLError() async throws {
        let proxy = try FaultServer.proxy()
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            let _: FaultServer.Attempts = try await proxy.invoke(.get, path: "drop")
        }
        print("FaultTests: dropped mid-response gave URLError \(error?.code.rawValue ?? 0)")
        #expect(error?.code != .cancelled)
        #expect(clock.now - start < .seconds(40))  // the session's idle timeout is 60 s
    }

    @Test func connectionDroppedMidResponseGivesURLErrorThroughCallback() async throws {
        let proxy = try FaultServer.proxy()
        proxy.callbackQueue = CallbackQueues.make("fault.drop")
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.get, path: "drop", resultHandler: $0)
        }
        #expect(outcome.error is URLError)
        #expect(outcome.queueLabel == "fault.drop")
        try await Task.sleep(for: .milliseconds(200))
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func droppedDownloadGivesURLErrorAndLeavesTheDestinationAlone() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("old".utf8), named: "kept.bin")
        let proxy = try FaultServer.proxy()
        await #expect(throws: URLError.self) {
            try await proxy.download(path: "drop", to: destination)
        }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["kept.bin"])
    }

    @Test func connectionResetGivesURLError() async throws {
        let proxy = try FaultServer.proxy()
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.get, path: "reset")
        }
        print("FaultTests: reset gave URLError \(error?.code.rawValue ?? 0)")
        #expect(error?.code != .cancelled)
    }

    /// A gzip body that compresses 50 times, as a list of similar records does, arrives
    /// decompressed (async-http-client's shared configuration refuses more than 25 times).
    @Test func highlyCompressedResponseIsDecompressed() async throws {
        struct Record: Decodable, Equatable {
            var id: Int
            var active: Bool
        }
        let records: [Record] = try await FaultServer.proxy().invoke(.get, path: "gzip-records", arguments: ["n": 1000])
        #expect(records.count == 1000)
        #expect(records.last == Record(id: 999, active: true))
    }

    @Test func malformedJSONGivesDecodingError() async throws {
        let proxy = try FaultServer.proxy()
        await #expect(throws: DecodingError.self) {
            let _: [String: [Int]] = try await proxy.invoke(.get, path: "malformed-json")
        }
    }

    @Test func malformedJSONGivesDecodingErrorThroughCallback() async throws {
        let proxy = try FaultServer.proxy()
        proxy.callbackQueue = CallbackQueues.make("fault.malformed")
        let outcome: CallbackOutcome<[String: [Int]]> = try await callback {
            proxy.invoke(.get, path: "malformed-json", resultHandler: $0)
        }
        #expect(outcome.error is DecodingError)
    }

    /// A response no HTTP client may accept fails with the code `Docs/Transports.md` lists for
    /// it, the same through either transport: `badServerResponse` for one that breaks HTTP's
    /// framing or syntax, `cannotDecodeContentData` for a body that does not decompress. Linux's
    /// URLSession gave `unknown` for most, and `unsupportedURL` for a bad status line, as if the
    /// URL were at fault. The proxy then works as before.
    @Test(arguments: [
        ("chunked", URLError.Code.badServerResponse), ("status", .badServerResponse), ("not-http", .badServerResponse),
        ("length", .badServerResponse), ("huge-length", .badServerResponse),
        ("huge-length-challenge", .badServerResponse), ("colon", .badServerResponse), ("headers", .badServerResponse),
        ("one-big-header", .badServerResponse), ("nul-header", .badServerResponse),
        ("conflicting-length", .badServerResponse), ("gzip", .cannotDecodeContentData),
        ("trailer", .badServerResponse), ("gzip-garbage", .cannotDecodeContentData),
        ("gzip-members", .cannotDecodeContentData),
    ])
    func aMalformedResponseGivesACodeForIt(how: String, code: URLError.Code) async throws {
        let proxy = try FaultServer.proxy()
        let error = await #expect(throws: URLError.self) {
            let _: FaultServer.OK = try await proxy.invoke(.get, path: "malformed", arguments: ["how": how])
        }
        #expect(error?.code == code, "\(how): \(error?.localizedDescription ?? "")")
        let result: FaultServer.OK = try await proxy.invoke(.get, path: "ok")
        #expect(result.ok, "the proxy still works")
    }

    /// A body in two content codings (`gzip, gzip`, or `identity, gzip`): Linux's URLSession
    /// decodes them all; async-http-client's decompressor undoes only the first one it is given,
    /// so the transport fails with `cannotDecodeContentData` rather than hand over a body still
    /// encoded as if it were whole.
    @Test(arguments: ["gzip-twice", "identity-gzip"])
    func aBodyInTwoCodingsIsDecodedOrRefused(how: String) async throws {
        let proxy = try FaultServer.proxy()
        #if KILO_ASYNC_HTTP_CLIENT
            let error = await #expect(throws: URLError.self) {
                let _: FaultServer.OK = try await proxy.invoke(.get, path: "malformed", arguments: ["how": how])
            }
            #expect(error?.code == .cannotDecodeContentData, "\(how): \(error?.localizedDescription ?? "")")
        #else
            let result: FaultServer.OK = try await proxy.invoke(.get, path: "malformed", arguments: ["how": how])
            #expect(result.ok)
        #endif
    }

    /// A body in a `Content-Encoding` the transport does not know fails with
    /// `cannotDecodeContentData`: Linux's URLSession gave libcurl's `unknown` ("Unrecognized
    /// content encoding type"), and async-http-client handed the body over as sent, as if it were
    /// the body.
    #if KILO_ASYNC_HTTP_CLIENT || canImport(FoundationNetworking)
        @Test func anUnknownEncodingIsRefusedWithACode() async throws {
            let proxy = try FaultServer.proxy()
            let error = await #expect(throws: URLError.self) {
                let _: FaultServer.OK = try await proxy.invoke(
                    .get, path: "malformed", arguments: ["how": "unknown-encoding"])
            }
            #expect(error?.code == .cannotDecodeContentData, "\(error?.localizedDescription ?? "")")
        }
    #else
        @Test(.disabled("what Apple's URLSession does with an unknown encoding is not checked here"))
        func anUnknownEncodingIsRefusedWithACode() {}
    #endif

    /// A 307 that leads back to itself, after a POST with a body: the body goes with every hop
    /// (on Linux, each on a new task), and the loop ends with `httpTooManyRedirects`, not forever.
    @Test func aRedirectLoopThatKeepsTheBodyEndsWithTooManyRedirects() async throws {
        let proxy = try FaultServer.proxy()
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.post, path: "redirect-loop?code=307", content: Data("note".utf8))
        }
        #expect(error?.code == .httpTooManyRedirects)
        let result: FaultServer.OK = try await proxy.invoke(.get, path: "ok")
        #expect(result.ok, "the proxy still works")
    }

    // MARK: Timeouts and cancellation

    @Test func hangingServerTimesOut() async throws {
        let proxy = try FaultServer.proxy().withTimeout(1)
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.get, path: "hang")
        }
        #expect(error?.code == .timedOut)
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(900))
        #expect(elapsed < .seconds(40))  // the session's own timeout is 60 s
    }

    /// The attempts are counted as the retrying transport makes them: a test process busy
    /// starting hundreds of tests can hold one past its 1-second timeout before it is sent, so
    /// the server may see fewer, never more.
    @Test func timeoutsAreRetriedForGETAndTheLastErrorIsTimedOut() async throws {
        let key = FaultServer.makeKey("hang-retry")
        let attempts = Protected(0)
        let retrying = Self.retrying(RetryPolicy(maximumAttempts: 2, initialDelay: 0.05))
        let proxy = try FaultServer.proxy { retrying(CountingTransport(base: $0, count: attempts)) }.withTimeout(1)
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.get, path: "hang", arguments: ["key": key])
        }
        #expect(error?.code == .timedOut)
        #expect(attempts.current == 2)
        #expect(try await FaultServer.count(key) <= 2)
    }

    @Test func cancellingAHangingRequestGivesCancelledPromptly() async throws {
        let key = FaultServer.makeKey("hang-cancel")
        let proxy = try FaultServer.proxy()
        let task = Task { try await proxy.invoke(.get, path: "hang", arguments: ["key": key]) }
        try await FaultServer.waitForCount(1, key: key)
        let cancelled = clock.now
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(clock.now - cancelled < .seconds(40))  // the hang ends only at the 60 s timeout
    }

    @Test func cancellingAHangingRequestCallsTheHandlerOnceWithCancelled() async throws {
        let key = FaultServer.makeKey("hang-cancel-callback")
        let proxy = try FaultServer.proxy()
        proxy.callbackQueue = CallbackQueues.make("fault.cancel")
        let outcome: CallbackOutcome<Void> = try await callback { handler in
            let task = proxy.invoke(.get, path: "hang", arguments: ["key": key], resultHandler: handler)
            Task {
                try await FaultServer.waitForCount(1, key: key)
                task?.cancel()
            }
            return task
        }
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.task?.isCancelled == true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(outcome.handlerCalls.current == 1)
    }

    // MARK: Retries

    @Test func serviceUnavailableIsRetriedAfterRetryAfter() async throws {
        let key = FaultServer.makeKey("flaky")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumAttempts: 3)))
        let start = clock.now
        let result: FaultServer.Attempts = try await proxy.invoke(
            .get, path: "flaky", arguments: ["key": key, "failures": 1, "retry-after": 1])
        let elapsed = clock.now - start
        #expect(result.attempts == 2)
        #expect(elapsed >= .milliseconds(950), "Retry-After: 1 was not honoured: \(elapsed)")
        #expect(try await FaultServer.count(key) == 2)
    }

    @Test func serviceUnavailableIsReturnedWhenAttemptsRunOut() async throws {
        let key = FaultServer.makeKey("flaky-exhausted")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumAttempts: 3, initialDelay: 0.05)))
        let error = await #expect(throws: WebServiceError.self) {
            let _: FaultServer.Attempts = try await proxy.invoke(
                .get, path: "flaky", arguments: ["key": key, "failures": 5])
        }
        #expect(error?.statusCode == 503)
        #expect(error?.localizedDescription == "try again later")
        #expect(try await FaultServer.count(key) == 3)
    }

    /// A `Retry-After` with more digits than an `Int` holds asks for a wait longer than the
    /// maximum: the 503 comes back at once, without a retry after the backoff.
    @Test func retryAfterTooLargeForAnIntReturnsTheResponseAtOnce() async throws {
        let key = FaultServer.makeKey("flaky-huge-retry-after")
        let proxy = try FaultServer.proxy(Self.retrying(.default))
        let error = await #expect(throws: WebServiceError.self) {
            let _: FaultServer.Attempts = try await proxy.invoke(
                .get, path: "flaky", arguments: ["key": key, "failures": 1, "retry-after": "99999999999999999999"])
        }
        #expect(error?.statusCode == 503)
        #expect(try await FaultServer.count(key) == 1)
    }

    /// With no maximum delay, a `Retry-After` of `Int64.max` seconds is a wait of about 31 years
    /// (`Task.sleep` traps on the value itself), which cancelling ends.
    @Test func retryAfterOfInt64MaxSecondsWaitsUntilCancelled() async throws {
        let key = FaultServer.makeKey("flaky-int64-max")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumDelay: .infinity)))
        let task = Task { () async throws -> FaultServer.Attempts in
            try await proxy.invoke(
                .get, path: "flaky", arguments: ["key": key, "failures": 1, "retry-after": "9223372036854775807"])
        }
        try await FaultServer.waitForCount(1, key: key)
        try await Task.sleep(for: .milliseconds(200))  // the 503 has arrived; the wait has begun
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(try await FaultServer.count(key) == 1)
    }

    /// A maximum delay of NaN asks for no wait: the retry goes at once, where `Task.sleep` used to
    /// trap on a NaN duration and end the process.
    @Test func aNaNMaximumDelayRetriesWithoutWaiting() async throws {
        let key = FaultServer.makeKey("flaky-nan-maximum")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumDelay: .nan)))
        let result: FaultServer.Attempts = try await proxy.invoke(
            .get, path: "flaky", arguments: ["key": key, "failures": 1])
        #expect(result.attempts == 2)
        #expect(try await FaultServer.count(key) == 2)
    }

    /// A response header whose value has a byte outside ASCII (`X-Name: café` in ISO-8859-1).
    /// Linux's URLSession refuses the whole response ("Failed writing header", -1); the transport
    /// calls that `cannotParseResponse`, keeping libcurl's error as the underlying one, rather
    /// than the `unknown` that says nothing. SwiftNIO takes the response.
    @Test func aHeaderValueOutsideASCII() async throws {
        struct OK: Decodable { var ok: Bool }
        let proxy = try FaultServer.proxy()
        #if KILO_ASYNC_HTTP_CLIENT || !canImport(FoundationNetworking)
            let result: OK = try await proxy.invoke(.get, path: "latin1-header")
            #expect(result.ok)
        #else
            let error = await #expect(throws: URLError.self) {
                let _: OK = try await proxy.invoke(.get, path: "latin1-header")
            }
            #expect(error?.code == .cannotParseResponse)
            #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == URLError.unknown.rawValue)
        #endif
    }

    /// A status line without a reason phrase (`HTTP/1.1 200`), which RFC 9112 allows: Linux's
    /// URLSession refuses it (`cannotParseResponse`); SwiftNIO takes it. Docs/Transports.md says so.
    @Test func aStatusLineWithoutAReasonPhrase() async throws {
        let proxy = try FaultServer.proxy()
        #if KILO_ASYNC_HTTP_CLIENT || !canImport(FoundationNetworking)
            let result: FaultServer.OK = try await proxy.invoke(
                .get,
                path: "malformed",
                arguments: ["how": "no-reason"]
            )
            #expect(result.ok)
        #else
            let error = await #expect(throws: URLError.self) {
                let _: FaultServer.OK = try await proxy.invoke(.get, path: "malformed", arguments: ["how": "no-reason"])
            }
            #expect(error?.code == .cannotParseResponse)
        #endif
    }

    /// `Http/1.1 200 OK`: Linux's URLSession takes it as a 200; SwiftNIO refuses it as a
    /// malformed response. Docs/Transports.md says so.
    @Test func aStatusLineWithAMixedCaseProtocolName() async throws {
        let proxy = try FaultServer.proxy()
        #if KILO_ASYNC_HTTP_CLIENT
            let error = await #expect(throws: URLError.self) {
                let _: FaultServer.OK = try await proxy.invoke(
                    .get,
                    path: "malformed",
                    arguments: ["how": "mixed-case-protocol"]
                )
            }
            #expect(error?.code == .badServerResponse)
        #elseif canImport(FoundationNetworking)
            let result: FaultServer.OK = try await proxy.invoke(
                .get,
                path: "malformed",
                arguments: ["how": "mixed-case-protocol"]
            )
            #expect(result.ok)
        #endif
    }

    /// `close`: the server closes without a response; `reset`: it resets the connection;
    /// `partial`: it closes after the headers and 10 of 1000 promised body bytes. Apple's
    /// URLSession calls all three `networkConnectionLost`; Linux's gives -1011, -1005 and -1, which
    /// the transport must turn into codes the default policy retries.
    @Test(arguments: ["close", "reset", "partial"])
    func droppedConnectionIsRetriedForGET(how: String) async throws {
        let key = FaultServer.makeKey("flaky-drop-\(how)")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumAttempts: 3)))
        let result: FaultServer.Attempts = try await proxy.invoke(
            .get, path: "flaky-drop", arguments: ["key": key, "failures": 1, "how": how])
        #expect(result.attempts == 2)
    }

    /// A server that closes the connection as soon as a request's headers arrive, without reading
    /// its body, as one that refuses an upload may. Linux's URLSession, still sending the body,
    /// fails with "Send failure: Broken pipe" as `.unknown`, which the transport must turn into
    /// the `networkConnectionLost` that Apple's URLSession (and SwiftNIO's `EPIPE`) gives.
    @Test func connectionClosedWhileTheBodyIsSentGivesNetworkConnectionLost() async throws {
        let key = FaultServer.makeKey("early-close")
        let proxy = try FaultServer.proxy()
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(
                .post, path: "flaky-early?key=\(key)&failures=5", content: Data(count: 8_000_000))
        }
        #expect(error?.code == .networkConnectionLost)
    }

    /// The same, for a `PUT`, which the default policy retries: the next attempt sends the whole body.
    @Test func connectionClosedWhileTheBodyIsSentIsRetriedForPUT() async throws {
        struct Received: Decodable { var attempts: Int, received: Int }
        let key = FaultServer.makeKey("early-close-put")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(initialDelay: 0.05)))
        let body = Data(count: 8_000_000)
        let result: Received = try await proxy.invoke(
            .put, path: "flaky-early?key=\(key)&failures=1", content: body)
        #expect(result.attempts == 2)
        #expect(result.received == body.count)
    }

    @Test(arguments: ["close", "reset", "partial"])
    func droppedConnectionIsNotRetriedForPOSTByDefault(how: String) async throws {
        let key = FaultServer.makeKey("post-drop-\(how)")
        let proxy = try FaultServer.proxy(Self.retrying(.default))
        let error = await #expect(throws: URLError.self) {
            let _: FaultServer.Attempts = try await proxy.invoke(
                .post, path: "flaky-drop?key=\(key)&failures=1&how=\(how)", arguments: ["note": "once only"])
        }
        print("FaultTests: POST with the connection dropped (\(how)) gave URLError \(error?.code.rawValue ?? 0)")
        #expect(try await FaultServer.count(key) == 1)
    }

    @Test func droppedConnectionIsRetriedForPOSTWhenThePolicySaysSo() async throws {
        let key = FaultServer.makeKey("post-drop-retried")
        var policy = RetryPolicy(maximumAttempts: 3)
        policy.retriedMethods.insert(.post)
        let proxy = try FaultServer.proxy(Self.retrying(policy))
        let result: FaultServer.Attempts = try await proxy.invoke(
            .post, path: "flaky-drop?key=\(key)&failures=1&how=reset", arguments: ["note": "twice is fine"])
        #expect(result.attempts == 2)
        #expect(try await FaultServer.count(key) == 2)
    }

    @Test func cancellingDuringARetryWaitStopsPromptlyAndSendsNothingMore() async throws {
        let key = FaultServer.makeKey("cancel-wait")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumAttempts: 3, maximumDelay: 120)))
        let task = Task { () async throws -> FaultServer.Attempts in
            try await proxy.invoke(.get, path: "flaky", arguments: ["key": key, "failures": 5, "retry-after": 120])
        }
        try await FaultServer.waitForCount(1, key: key)
        try await Task.sleep(for: .milliseconds(200))  // the 503 has arrived; the 120 s wait has begun
        let cancelled = clock.now
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(clock.now - cancelled < .seconds(60))
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await FaultServer.count(key) == 1)
    }

    @Test func cancellingARequestTaskDuringARetryWaitCallsTheHandlerOnce() async throws {
        let key = FaultServer.makeKey("cancel-wait-callback")
        let proxy = try FaultServer.proxy(Self.retrying(RetryPolicy(maximumAttempts: 3, maximumDelay: 120)))
        proxy.callbackQueue = CallbackQueues.make("fault.cancel-wait")
        let start = clock.now
        let outcome: CallbackOutcome<FaultServer.Attempts> = try await callback { handler in
            let task = proxy.invoke(
                .get, path: "flaky", arguments: ["key": key, "failures": 5, "retry-after": 120], resultHandler: handler)
            Task {
                try await FaultServer.waitForCount(1, key: key)
                try await Task.sleep(for: .milliseconds(200))
                task?.cancel()
            }
            return task
        }
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(clock.now - start < .seconds(60))
        try await Task.sleep(for: .milliseconds(500))
        #expect(outcome.handlerCalls.current == 1)
        #expect(try await FaultServer.count(key) == 1)
    }

    // MARK: Interceptors

    @Test func interceptorAddsATokenAndRefreshesItOnceOn401() async throws {
        let key = FaultServer.makeKey("auth")
        let tokens = TokenStore(["expired", "fresh"])
        let proxy = try FaultServer.proxy { $0.intercepted(by: BearerInterceptor(tokens: tokens)) }
        let result: FaultServer.Attempts = try await proxy.invoke(
            .get, path: "auth", arguments: ["token": "fresh", "key": key])
        #expect(result.attempts == 2)
        #expect(try await FaultServer.count(key) == 2)
        #expect(await tokens.fetches == 2)
    }

    @Test func interceptorRefreshesTheTokenThroughCallback() async throws {
        let key = FaultServer.makeKey("auth-callback")
        let tokens = TokenStore(["expired", "fresh"])
        let proxy = try FaultServer.proxy { $0.intercepted(by: BearerInterceptor(tokens: tokens)) }
        proxy.callbackQueue = CallbackQueues.make("fault.auth")
        let outcome: CallbackOutcome<FaultServer.Attempts> = try await callback {
            proxy.invoke(.get, path: "auth", arguments: ["token": "fresh", "key": key], resultHandler: $0)
        }
        #expect(try outcome.get().attempts == 2)
        #expect(try await FaultServer.count(key) == 2)
    }

    @Test func interceptorGivesUpAfterOneRefresh() async throws {
        let key = FaultServer.makeKey("auth-refused")
        let tokens = TokenStore(["expired", "also-wrong", "never-asked-for"])
        let proxy = try FaultServer.proxy { $0.intercepted(by: BearerInterceptor(tokens: tokens)) }
        let error = await #expect(throws: WebServiceError.self) {
            let _: FaultServer.Attempts = try await proxy.invoke(
                .get, path: "auth", arguments: ["token": "fresh", "key": key])
        }
        #expect(error?.statusCode == 401)
        #expect(try await FaultServer.count(key) == 2)
        #expect(await tokens.fetches == 2)
    }
}

/// A body larger than memory should hold, and many requests at once.
///
/// Serialized, and apart from ``FaultTests``, because resident memory is the whole process's: the
/// memory checks would otherwise measure whatever else runs at the same time.
@Suite(
    .serialized,
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(2))
)
struct FaultLoadTests {
    /// How much a 512 MiB download may grow resident memory (the figure issue 21 sets for 1 GiB).
    private static let memoryGrowthLimit = 64 << 20

    /// `session`: a proxy on a caller's `URLSession` (completion handlers); `owned`: a proxy with
    /// a session of its own (Kilo's delegate, progress as bytes move).
    private static func proxy(_ mode: String, maximumConnections: Int = 6) throws -> WebServiceProxy {
        let url = try #require(FaultServer.url, "KILO_FAULT_URL is not set")
        #if KILO_ASYNC_HTTP_CLIENT
            return Servers.makeProxy(baseURL: url)  // one client for every mode
        #else
            if mode == "session" {
                return WebServiceProxy(session: Servers.session, baseURL: url)
            }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = maximumConnections
            return WebServiceProxy(configuration: configuration, baseURL: url)
        #endif
    }

    /// Sends `total` GET requests to `/ok`, at most `inFlight` at a time, and counts the successes.
    private static func sendMany(_ total: Int, inFlight: Int, through proxy: WebServiceProxy, key: String) async throws
        -> Int
    {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            var started = 0
            var succeeded = 0
            @Sendable func send() async throws -> Bool {
                let result: FaultServer.OK = try await proxy.invoke(.get, path: "ok", arguments: ["key": key])
                return result.ok
            }
            while started < min(inFlight, total) {
                group.addTask { try await send() }
                started += 1
            }
            while let ok = try await group.next() {
                succeeded += ok ? 1 : 0
                if started < total {
                    group.addTask { try await send() }
                    started += 1
                }
            }
            return succeeded
        }
    }

    /// Downloads `/huge?mb=512` to a file, and checks the file and how much resident memory grew,
    /// sampled every 10 ms throughout.
    private func downloadHugeBody(_ mode: String, progress: ProgressHandler? = nil) async throws {
        let megabytes = 512
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("huge.bin")
        let proxy = try Self.proxy(mode)
        let (_, before, peak) = try await FaultServer.residentMemory {
            try await proxy.download(path: "huge", arguments: ["mb": megabytes], to: destination, progress: progress)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect((attributes[.size] as? NSNumber)?.int64Value == Int64(megabytes) << 20)
        guard let before, let peak else { return }  // no /proc: nothing to measure
        print("FaultLoadTests: \(megabytes) MiB download (\(mode)): RSS \(before >> 20) MiB before, peak \(peak >> 20) MiB")
        #expect(peak - before < Self.memoryGrowthLimit, "resident memory grew by \((peak - before) >> 20) MiB")
    }

    @Test(arguments: ["session", "owned"])
    func hugeDownloadStreamsToAFileInBoundedMemory(mode: String) async throws {
        try await downloadHugeBody(mode)
    }

    /// A progress handler that takes 5 ms (a log write, say) must not make the download hold the
    /// body in memory while the handler catches up.
    @Test(arguments: ["session", "owned"])
    func hugeDownloadWithASlowProgressHandlerStaysInBoundedMemory(mode: String) async throws {
        let calls = Protected(0)
        try await downloadHugeBody(
            mode,
            progress: ProgressHandler { _ in
                calls.withLock { $0 += 1 }
                Thread.sleep(forTimeInterval: 0.005)
            }
        )
        print("FaultLoadTests: \(calls.current) progress reports (\(mode))")
    }

    @Test func thousandRequestsWithAHundredInFlightAllSucceed() async throws {
        let key = FaultServer.makeKey("load")
        let proxy = try Self.proxy("owned", maximumConnections: 100)
        let succeeded = try await Self.sendMany(1_000, inFlight: 100, through: proxy, key: key)
        #expect(succeeded == 1_000)
        #expect(try await FaultServer.count(key) == 1_000)
    }
}

/// Hands out access tokens in turn, as a token endpoint would: the current one until it is
/// invalidated, then the next.
private actor TokenStore {
    private let tokens: [String]
    private var current: String?
    /// How many tokens have been fetched.
    private(set) var fetches = 0

    init(_ tokens: [String]) {
        self.tokens = tokens
    }

    /// The current token, fetched if there is none.
    func token() async -> String {
        if let current { return current }
        await Task.yield()  // stands in for a request to a token endpoint
        let token = tokens[min(fetches, tokens.count - 1)]
        fetches += 1
        current = token
        return token
    }

    /// Forgets the current token, so the next ``token()`` fetches another.
    func invalidate() {
        current = nil
    }
}

/// Sends `Authorization: Bearer <token>` and, on a 401, refreshes the token and asks to retry.
private struct BearerInterceptor: RequestInterceptor {
    let tokens: TokenStore

    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        var request = request
        request.headers["Authorization"] = "Bearer \(await tokens.token())"
        return request
    }

    func shouldRetry(
        _ request: TransportRequest, after outcome: Result<TransportResponse, any Error>, attempt: Int
    ) async -> Bool {
        guard case .success(let response) = outcome, response.statusCode == 401 else { return false }
        await tokens.invalidate()
        return true
    }
}

/// A server may close a kept-alive connection just as the client sends its next request on it:
/// its keep-alive timeout ran out (gunicorn's is 2 seconds) and it drops the connection with the
/// request unread. When the whole request was already written, libcurl sends it again on a new
/// connection, and on Linux (swift-corelibs-foundation 6.3.1) that second copy carried the
/// headers and none of the body: the server waited for the body until the request timed out.
///
/// Serialized, with sessions of its own: `/stale-keep-alive` leaves a connection that resets the
/// next request sent on it, which no other test's request may take.
@Suite(
    .serialized,
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(1))
)
struct KeptAliveConnectionTests {
    private static let session = URLSession(configuration: .ephemeral)
    private static let ownedSessionTransport = URLSessionTransport(configuration: .ephemeral)

    private struct Received: Decodable {
        var received: Int
    }

    /// Sends `body` twice to `/stale-keep-alive`: the second request goes out on the first one's
    /// kept-alive connection, which the server resets. Returns what became of each request.
    private func sendTwice(
        _ body: TransportRequest.Body,
        size: Int,
        mode: String,
        key: String,
        method: KiloTransport.HTTPMethod = .post
    ) async throws -> [Result<Void, URLError>] {
        let baseURL = try #require(FaultServer.url, "KILO_FAULT_URL is not set")
        let url = try #require(URL(string: "stale-keep-alive?key=\(key)", relativeTo: baseURL)?.absoluteURL)
        let transport = mode == "session" ? URLSessionTransport(session: Self.session) : Self.ownedSessionTransport
        var results: [Result<Void, URLError>] = []
        for _ in 1...2 {
            let start = ContinuousClock.now
            do {
                let response = try await transport.send(
                    TransportRequest(
                        method: method,
                        url: url,
                        headers: ["Content-Type": "application/json"],
                        body: body,
                        timeoutInterval: 60
                    )
                )
                #expect(response.statusCode == 200)
                #expect(try JSONDecoder().decode(Received.self, from: response.body).received == size)
                results.append(.success(()))
            } catch let error as URLError {
                results.append(.failure(error))
            }
            #expect(ContinuousClock.now - start < .seconds(40), "no request waits for its timeout")
        }
        return results
    }

    /// `session`: a transport on a caller's `URLSession` (completion handlers); `owned`: a
    /// transport with a session of its own (Kilo's delegate).
    ///
    /// Usually libcurl notices the reset before it writes the request and asks to rewind the
    /// body, and Kilo sends an idempotent request (a `PUT`) again: both succeed. If the reset
    /// lands while libcurl is writing, libcurl fails the request instead ("Send failure",
    /// `networkConnectionLost`). Either way nothing waits for its timeout, and no request arrives
    /// without its body.
    ///
    /// The second request can only succeed if Kilo resends it on a new connection, so the test
    /// tries up to five times and requires that to happen at least once.
    @Test(arguments: ["session", "owned"])
    func bodyFromMemoryArrivesWholeWhenTheServerResetsTheReusedConnection(mode: String) async throws {
        let payload = Data(#"{"title":"Plan + test","count":3}"#.utf8)
        var resent = false
        for attempt in 1...5 where !resent {
            let key = FaultServer.makeKey("stale-keep-alive-data-\(mode)-\(attempt)")
            let results = try await sendTwice(.data(payload), size: payload.count, mode: mode, key: key, method: .put)
            #expect(throws: Never.self, "the first request has a fresh connection") { try results[0].get() }
            for case .failure(let error) in results {
                #expect(error.code == .networkConnectionLost)
            }
            let arrived = results.filter { (try? $0.get()) != nil }.count
            #expect(try await FaultServer.count(key) == arrived, "each request reached the server whole, once")
            resent = arrived == 2
        }
        #expect(resent, "in five tries, the request on the reset connection was never sent again")
    }

    /// A `POST` on a connection the server reset is never sent again by Kilo: the server may
    /// have acted on it. It fails with `networkConnectionLost`, and the server receives each
    /// `POST` at most once. (Kilo used to send it again on a new task, and the server received
    /// the body twice.)
    @Test(arguments: ["session", "owned"])
    func aPostOnAResetConnectionIsNeverSentTwice(mode: String) async throws {
        let payload = Data(#"{"title":"Plan + test","count":3}"#.utf8)
        var failures = 0
        for attempt in 1...3 {
            let key = FaultServer.makeKey("stale-keep-alive-post-\(mode)-\(attempt)")
            let results = try await sendTwice(.data(payload), size: payload.count, mode: mode, key: key)
            for case .failure(let error) in results {
                #expect(error.code == .networkConnectionLost)
                failures += 1
            }
            let arrived = results.filter { (try? $0.get()) != nil }.count
            #expect(try await FaultServer.count(key) == arrived, "each POST reached the server once, or not at all")
        }
        #expect(failures > 0, "a POST on a reset connection fails rather than going out again")
    }

    /// A file body goes out after the headers, so the reset may come while libcurl is still
    /// sending it; libcurl then fails the request (`networkConnectionLost`) instead of sending it
    /// again. Either way, nothing waits for its timeout and no request arrives without its body.
    /// A body of 4 MiB is still going out when the reset comes; on Linux its stream then stops,
    /// so that no part of it goes out again from the middle of the file.
    @Test(arguments: ["session", "owned"], [35, 4 << 20])
    func bodyFromFileArrivesWholeOrFailsAtOnceWhenTheServerResetsTheReusedConnection(
        mode: String,
        size: Int
    ) async throws {
        let key = FaultServer.makeKey("stale-keep-alive-file-\(mode)")
        let payload = size == 35 ? Data(#"{"title":"Plan + test","count":3}"#.utf8) : Data(count: size)
        let directory = try TemporaryDirectory()
        let file = try directory.write(payload, named: "body.json")
        let results = try await sendTwice(.file(file), size: payload.count, mode: mode, key: key)
        for case .failure(let error) in results {
            #expect(error.code == .networkConnectionLost)
        }
        let arrived = results.filter { (try? $0.get()) != nil }.count
        #expect(
            try await FaultServer.count(key) == arrived,
            "each request reached the server whole, once, or not at all"
        )
    }
}
