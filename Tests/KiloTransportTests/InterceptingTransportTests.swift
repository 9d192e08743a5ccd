import Foundation
import KiloTransport
import Testing

@Suite struct InterceptingTransportTests {
    private func request(_ method: HTTPMethod = .get) -> TransportRequest {
        TransportRequest(method: method, url: URL(string: "https://api.example.com/items")!)
    }

    @Test func adaptRunsBeforeEveryAttemptOnTheRequestAsBuilt() async throws {
        let fake = ScriptedOutcomes.transport([.status(401), .status(401), .status(200)])
        let interceptor = RecordingInterceptor(retryOn: [401])
        let response = try await fake.intercepted(by: interceptor, maximumAttempts: 3).send(request())
        #expect(response.statusCode == 200)
        #expect(await fake.requests.map { $0.headers["X-Attempt"] } == ["1", "2", "3"])
        #expect(await interceptor.adapted == [request(), request(), request()])
    }

    @Test func progressStartsOverWhenTheRequestIsSentAgain() async throws {
        let outcome = try await ReceivedProgress.acrossTwoAttempts(firstStatus: 401, firstBodySize: 500) {
            $0.intercepted(by: RecordingInterceptor(retryOn: [401]))
        }
        #expect(outcome.statusCode == 200)
        #expect(outcome.reports == ["500/500", "0/-1", "3/-1", "3/3"])
    }

    @Test func tokenIsRefreshedOnceOn401() async throws {
        let fake = FakeTransport { request in
            TransportResponse(statusCode: request.headers["Authorization"] == "Bearer fresh" ? 200 : 401)
        }
        let tokens = TokenSource(["stale", "fresh"])
        let response = try await fake.intercepted(by: RefreshingInterceptor(tokens: tokens)).send(request())
        #expect(response.statusCode == 200)
        #expect(await fake.requests.map { $0.headers["Authorization"] } == ["Bearer stale", "Bearer fresh"])
        #expect(await tokens.fetches == 2)
    }

    /// Requests that start together share one sign-in, and requests refused together share one
    /// refresh: an actor's method lets other calls in while it awaits, and the recipe's first
    /// version signed in once per request, handing each a different token.
    @Test func concurrentRequestsShareOneSignInAndOneRefresh() async throws {
        let validToken = Locked("first")
        let fake = FakeTransport { request in
            let isValid = request.headers["Authorization"] == "Bearer \(validToken.withLock { $0 })"
            return TransportResponse(statusCode: isValid ? 200 : 401)
        }
        let tokens = TokenSource(["first", "second", "third"])
        let transport = fake.intercepted(by: RefreshingInterceptor(tokens: tokens))
        let sendTogether = {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { (try? await transport.send(self.request()).statusCode) ?? 0 }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await sendTogether() == Array(repeating: 200, count: 20))
        #expect(await tokens.fetches == 1)

        validToken.withLock { $0 = "second" }  // the first token expires
        #expect(await sendTogether() == Array(repeating: 200, count: 20))
        #expect(await tokens.fetches == 2)
    }

    @Test func aSecond401IsReturned() async throws {
        let fake = ScriptedOutcomes.transport([.status(401)])
        let tokens = TokenSource(["stale", "revoked", "unused"])
        let response = try await fake.intercepted(by: RefreshingInterceptor(tokens: tokens)).send(request())
        #expect(response.statusCode == 401)
        #expect(await fake.requests.count == 2)
        #expect(await tokens.fetches == 2)
    }

    @Test(arguments: [1, 2, 4])
    func maximumAttemptsIsHonoured(maximumAttempts: Int) async throws {
        let fake = ScriptedOutcomes.transport([.status(401)])
        let interceptor = RecordingInterceptor(retryOn: [401])
        let transport = InterceptingTransport(fake, interceptor: interceptor, maximumAttempts: maximumAttempts)
        #expect(try await transport.send(request()).statusCode == 401)
        #expect(await fake.requests.count == maximumAttempts)
        #expect(await interceptor.decisions.map(\.attempt) == Array(1..<maximumAttempts))
    }

    @Test func theDefaultIsTwoAttempts() async throws {
        let fake = ScriptedOutcomes.transport([.status(401)])
        let transport = fake.intercepted(by: RecordingInterceptor(retryOn: [401]))
        #expect(transport.maximumAttempts == 2)
        _ = try await transport.send(request())
        #expect(await fake.requests.count == 2)
    }

    @Test func anInterceptorThatOnlyAdaptsNeverRetries() async throws {
        let fake = ScriptedOutcomes.transport([.status(503), .status(200)])
        let response = try await fake.intercepted(by: HeaderInterceptor()).send(request())
        #expect(response.statusCode == 503)
        #expect(await fake.requests.map { $0.headers["X-Client"] } == ["kilo"])
    }

    @Test func shouldRetrySeesTheAdaptedRequestTheOutcomeAndTheAttempt() async throws {
        let fake = ScriptedOutcomes.transport([.urlError(.networkConnectionLost), .status(200)])
        let interceptor = RecordingInterceptor(retryOn: [], retryErrors: true)
        let response = try await fake.intercepted(by: interceptor).send(request())
        #expect(response.statusCode == 200)
        let decisions = await interceptor.decisions
        #expect(decisions.count == 1)
        #expect(decisions.first?.attempt == 1)
        #expect(decisions.first?.request.headers["X-Attempt"] == "1")
        #expect(decisions.first?.errorCode == .networkConnectionLost)
    }

    @Test func theLastErrorIsThrownWhenAttemptsRunOut() async throws {
        let fake = ScriptedOutcomes.transport([.urlError(.networkConnectionLost), .urlError(.timedOut)])
        let interceptor = RecordingInterceptor(retryOn: [], retryErrors: true)
        await #expect(throws: URLError(.timedOut)) {
            try await fake.intercepted(by: interceptor).send(request())
        }
        #expect(await fake.requests.count == 2)
    }

    @Test func anAdaptErrorFailsTheRequestWithoutSendingIt() async throws {
        let fake = ScriptedOutcomes.transport([.status(200)])
        await #expect(throws: NoToken.self) {
            try await fake.intercepted(by: FailingInterceptor(failFromAttempt: 1)).send(request())
        }
        #expect(await fake.requests.isEmpty)
    }

    @Test func anAdaptErrorBeforeARetryEndsTheRequest() async throws {
        let fake = ScriptedOutcomes.transport([.status(401), .status(200)])
        await #expect(throws: NoToken.self) {
            try await fake.intercepted(by: FailingInterceptor(failFromAttempt: 2)).send(request())
        }
        #expect(await fake.requests.count == 1)
    }

    @Test func aCancelledTaskIsNotRetried() async throws {
        let fake = FakeTransport { _ in
            withUnsafeCurrentTask { $0?.cancel() }  // cancelled while the request was in flight
            return TransportResponse(statusCode: 401)
        }
        let interceptor = RecordingInterceptor(retryOn: [401])
        let response = try await fake.intercepted(by: interceptor, maximumAttempts: 3).send(request())
        #expect(response.statusCode == 401)
        #expect(await fake.requests.count == 1)
        #expect(await interceptor.decisions.isEmpty)
    }

    /// Cancellation that comes while `shouldRetry` runs (refreshing a token, say) stops the
    /// retry it asks for: no further attempt is adapted or sent.
    @Test func aTaskCancelledWhileShouldRetryRunsIsNotRetried() async throws {
        let fake = ScriptedOutcomes.transport([.status(401), .status(200)])
        let interceptor = CancellingInterceptor()
        let response = try await fake.intercepted(by: interceptor, maximumAttempts: 3).send(request())
        #expect(response.statusCode == 401)
        #expect(await fake.requests.count == 1)
        #expect(await interceptor.adaptations == 1)
    }

    @Test func everyRetryOfARetryingTransportIsAdaptedAgain() async throws {
        let fake = ScriptedOutcomes.transport([.status(503), .status(200)])
        let interceptor = RecordingInterceptor(retryOn: [])
        let delays = RecordedDelays()
        let transport = RetryingTransport(
            fake.intercepted(by: interceptor), sleep: { await delays.record($0) }, random: { 0 })
        #expect(try await transport.send(request()).statusCode == 200)
        #expect(await fake.requests.map { $0.headers["X-Attempt"] } == ["1", "2"])
        #expect(await delays.delays == [0.25])
    }
}

/// Numbers each attempt in an `X-Attempt` header, records what it adapted and decided, and
/// asks to retry on the given statuses (and, optionally, on any error).
private actor RecordingInterceptor: RequestInterceptor {
    struct Decision: Sendable {
        var request: TransportRequest
        var attempt: Int
        var statusCode: Int?
        var errorCode: URLError.Code?
    }

    private let retriedStatuses: Set<Int>
    private let retryErrors: Bool
    private(set) var adapted: [TransportRequest] = []
    private(set) var decisions: [Decision] = []

    init(retryOn statuses: Set<Int>, retryErrors: Bool = false) {
        self.retriedStatuses = statuses
        self.retryErrors = retryErrors
    }

    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        adapted.append(request)
        var request = request
        request.headers["X-Attempt"] = String(adapted.count)
        return request
    }

    func shouldRetry(
        _ request: TransportRequest, after outcome: Result<TransportResponse, any Error>, attempt: Int
    ) async -> Bool {
        switch outcome {
        case .success(let response):
            decisions.append(Decision(request: request, attempt: attempt, statusCode: response.statusCode))
            return retriedStatuses.contains(response.statusCode)
        case .failure(let error):
            decisions.append(Decision(request: request, attempt: attempt, errorCode: (error as? URLError)?.code))
            return retryErrors
        }
    }
}

/// The token store of the token-refresh recipe in `Docs/Reliability.md`, whose sign-in hands
/// out the given tokens in turn.
private actor TokenSource {
    private let tokens: [String]
    private var token: String?
    private var refresh: Task<String, Never>?
    private(set) var fetches = 0

    init(_ tokens: [String]) {
        self.tokens = tokens
    }

    func current() async -> String {
        if let token { return token }
        if let refresh { return await refresh.value }
        let task = Task { await signIn() }
        refresh = task
        defer { refresh = nil }
        let fresh = await task.value
        token = fresh
        return fresh
    }

    func invalidate(_ rejected: String) {
        if token == rejected { token = nil }
    }

    /// Waits a little, as a call to a server would, letting other calls into the actor.
    private func signIn() async -> String {
        let token = tokens[min(fetches, tokens.count - 1)]
        fetches += 1
        try? await Task.sleep(for: .milliseconds(20))  // never cancelled
        return token
    }
}

/// The token-refresh recipe from `Docs/Reliability.md`.
private struct RefreshingInterceptor: RequestInterceptor {
    let tokens: TokenSource

    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        var request = request
        request.headers["Authorization"] = "Bearer \(await tokens.current())"
        return request
    }

    func shouldRetry(
        _ request: TransportRequest, after outcome: Result<TransportResponse, any Error>, attempt: Int
    ) async -> Bool {
        guard case .success(let response) = outcome, response.statusCode == 401,
            let sent = request.headers["Authorization"]
        else { return false }
        await tokens.invalidate(String(sent.dropFirst("Bearer ".count)))
        return true
    }
}

/// Adds a header and relies on the default `shouldRetry`.
private struct HeaderInterceptor: RequestInterceptor {
    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        var request = request
        request.headers["X-Client"] = "kilo"
        return request
    }
}

private struct NoToken: Error {}

/// Fails to adapt from the given attempt on, and asks to retry every attempt.
private actor FailingInterceptor: RequestInterceptor {
    private let failFromAttempt: Int
    private var attempts = 0

    init(failFromAttempt: Int) {
        self.failFromAttempt = failFromAttempt
    }

    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        attempts += 1
        guard attempts < failFromAttempt else { throw NoToken() }
        return request
    }

    func shouldRetry(
        _ request: TransportRequest, after outcome: Result<TransportResponse, any Error>, attempt: Int
    ) async -> Bool {
        true
    }
}

/// Asks to retry every attempt, and cancels the calling task as it decides, as a cancellation
/// that arrives during a slow token refresh would.
private actor CancellingInterceptor: RequestInterceptor {
    private(set) var adaptations = 0

    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        adaptations += 1
        return request
    }

    func shouldRetry(
        _ request: TransportRequest,
        after outcome: Result<TransportResponse, any Error>,
        attempt: Int
    ) async -> Bool {
        withUnsafeCurrentTask { $0?.cancel() }
        return true
    }
}
