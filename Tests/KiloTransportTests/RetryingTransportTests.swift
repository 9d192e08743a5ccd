import Foundation
import KiloTransport
import Testing

@Suite struct RetryingTransportTests {
    private let delays = RecordedDelays()

    private func request(_ method: HTTPMethod = .get, headers: HTTPHeaders = ["X-Id": "7"]) -> TransportRequest {
        TransportRequest(method: method, url: URL(string: "https://api.example.com/items")!, headers: headers)
    }

    /// A retrying transport around `fake` that records its waits instead of sleeping.
    private func retrying(
        _ fake: FakeTransport, policy: RetryPolicy = .default, jitter: Double = 0
    ) -> RetryingTransport {
        let delays = delays
        return RetryingTransport(fake, policy: policy, sleep: { await delays.record($0) }, random: { jitter })
    }

    @Test func retriesUntilASuccessWithExponentialBackoff() async throws {
        let fake = ScriptedOutcomes.transport([.status(503), .urlError(.networkConnectionLost), .status(200)])
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 200)
        #expect(await fake.requests == [request(), request(), request()])
        #expect(await delays.delays == [0.25, 0.5])
    }

    /// A retry starts the progress over: the reports end with the last attempt's bytes, even when
    /// the failed attempt received more.
    @Test func progressStartsOverAtEachRetry() async throws {
        let outcome = try await ReceivedProgress.acrossTwoAttempts(firstStatus: 503, firstBodySize: 1000) {
            retrying($0)
        }
        #expect(outcome.statusCode == 200)
        #expect(outcome.reports == ["1000/1000", "0/-1", "3/-1", "3/3"])
    }

    /// An error read into a file with no error body limit goes there whole: the decorator leaves
    /// it unread, rather than cutting it to the prefix it reads for a policy.
    @Test func anErrorsBodyForAFileIsLeftWhole() async throws {
        let body = Data(repeating: 0x61, count: 3 << 20)
        let fake = FakeTransport { _ in TransportResponse(statusCode: 404, body: body) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-retry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }  // Test clean-up only.
        let response = try await retrying(fake).send(request(), consuming: .file(file))
        #expect(response.statusCode == 404)
        #expect(try Data(contentsOf: file) == body)
    }

    @Test func fullJitterDoublesTheSmallestDelays() async throws {
        let fake = ScriptedOutcomes.transport([.status(502), .status(504), .status(200)])
        let response = try await retrying(fake, jitter: 1).send(request())
        #expect(response.statusCode == 200)
        #expect(await delays.delays == [0.5, 1.0])
    }

    @Test func returnsTheLastResponseWhenAttemptsRunOut() async throws {
        let fake = ScriptedOutcomes.transport([.status(503)])
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 503)
        #expect(response.body == Data("503".utf8))
        #expect(await fake.requests.count == 3)
        #expect(await delays.delays.count == 2)
    }

    @Test func throwsTheLastErrorWhenAttemptsRunOut() async throws {
        let fake = ScriptedOutcomes.transport([.urlError(.networkConnectionLost), .urlError(.timedOut)])
        await #expect(throws: URLError(.timedOut)) {
            try await retrying(fake).send(request())
        }
        #expect(await fake.requests.count == 3)
    }

    @Test(arguments: [1, 2, 5])
    func maximumAttemptsIsHonoured(maximumAttempts: Int) async throws {
        let fake = ScriptedOutcomes.transport([.status(503)])
        let policy = RetryPolicy(maximumAttempts: maximumAttempts)
        let response = try await retrying(fake, policy: policy).send(request())
        #expect(response.statusCode == 503)
        #expect(await fake.requests.count == maximumAttempts)
        #expect(await delays.delays == Array([0.25, 0.5, 1, 2].prefix(maximumAttempts - 1)))
    }

    @Test func retryAfterSecondsSetTheWait() async throws {
        let fake = ScriptedOutcomes.transport([
            .status(503, retryAfter: "2"), .status(429, retryAfter: "0"), .status(200),
        ])
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 200)
        #expect(await delays.delays == [2, 0])
    }

    @Test func retryAfterHTTPDateSetsTheWait() async throws {
        let date = HTTPDate.string(from: Date().addingTimeInterval(10))
        let fake = ScriptedOutcomes.transport([.status(503, retryAfter: date), .status(200)])
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 200)
        let waited = try #require(await delays.delays.first)
        #expect((8...10).contains(waited))
    }

    @Test func tooLongRetryAfterReturnsTheResponseAtOnce() async throws {
        let fake = ScriptedOutcomes.transport([.status(503, retryAfter: "120"), .status(200)])
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 503)
        #expect(response.headers["retry-after"] == "120")
        #expect(await fake.requests.count == 1)
        #expect(await delays.delays.isEmpty)
    }

    @Test(arguments: [HTTPMethod.post, .patch])
    func nonIdempotentRequestsAreNotRetried(method: HTTPMethod) async throws {
        let unavailable = ScriptedOutcomes.transport([.status(503), .status(200)])
        #expect(try await retrying(unavailable).send(request(method)).statusCode == 503)
        #expect(await unavailable.requests.count == 1)

        let dropped = ScriptedOutcomes.transport([.urlError(.networkConnectionLost), .status(200)])
        await #expect(throws: URLError(.networkConnectionLost)) {
            try await retrying(dropped).send(request(method))
        }
        #expect(await dropped.requests.count == 1)
        #expect(await delays.delays.isEmpty)
    }

    @Test func postIsRetriedWhenThePolicyListsIt() async throws {
        let fake = ScriptedOutcomes.transport([.urlError(.networkConnectionLost), .status(200)])
        var policy = RetryPolicy.default
        policy.retriedMethods.insert(.post)
        #expect(try await retrying(fake, policy: policy).send(request(.post)).statusCode == 200)
        #expect(await fake.requests.count == 2)
    }

    @Test(arguments: [
        URLError.Code.timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
        .notConnectedToInternet,
    ])
    func connectionErrorsAreRetried(code: URLError.Code) async throws {
        let fake = ScriptedOutcomes.transport([.urlError(code), .status(200)])
        #expect(try await retrying(fake).send(request()).statusCode == 200)
        #expect(await fake.requests.count == 2)
    }

    @Test(arguments: [URLError.Code.cancelled, .badURL, .secureConnectionFailed, .userAuthenticationRequired])
    func otherURLErrorsAreThrownAtOnce(code: URLError.Code) async throws {
        let fake = ScriptedOutcomes.transport([.urlError(code), .status(200)])
        await #expect(throws: URLError(code)) {
            try await retrying(fake).send(request())
        }
        #expect(await fake.requests.count == 1)
        #expect(await delays.delays.isEmpty)
    }

    @Test func invalidRequestIsNotRetried() async throws {
        let fake = ScriptedOutcomes.transport([.status(200)])
        await #expect(throws: RequestError.invalidHeaderValue("X-Id")) {
            try await retrying(fake).send(request(headers: ["X-Id": "a\r\nb"]))
        }
        #expect(await fake.requests.isEmpty)
        #expect(await delays.delays.isEmpty)
    }

    @Test func cancellingDuringTheWaitStopsWithoutAnotherAttempt() async throws {
        let fake = ScriptedOutcomes.transport([.status(503), .status(200)])
        let delays = delays
        let transport = RetryingTransport(
            fake,
            sleep: { delay in
                await delays.record(delay)
                try await Task.sleep(for: .seconds(300))
            },
            random: { 0 })
        let request = request()
        let task = Task { try await transport.send(request) }
        while await delays.delays.isEmpty {
            await Task.yield()
        }
        let clock = ContinuousClock()
        let cancelled = clock.now
        task.cancel()
        await #expect(throws: CancellationError.self) {
            try await task.value
        }
        #expect(clock.now - cancelled < .seconds(60))  // the wait is 300 s
        #expect(await fake.requests.count == 1)
    }

    @Test func cancelledTaskIsNotRetried() async throws {
        let fake = FakeTransport { _ in
            withUnsafeCurrentTask { $0?.cancel() }  // cancelled while the request was in flight
            return TransportResponse(statusCode: 503)
        }
        let response = try await retrying(fake).send(request())
        #expect(response.statusCode == 503)
        #expect(await fake.requests.count == 1)
        #expect(await delays.delays.isEmpty)
    }

    @Test func retryingWrapsATransportWithAPolicy() {
        let policy = RetryPolicy(maximumAttempts: 4)
        let transport = FakeTransport().retrying(policy)
        #expect(transport.policy == policy)
        #expect(transport.transport is FakeTransport)
        #expect(FakeTransport().retrying().policy == .default)
    }
}
