import Foundation
import Kilo
import Testing

/// Checks that one proxy serves many requests at once, each with its own correct result.
@Suite(.enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"))
struct ConcurrencyTests {
    private static let requestCount = 100

    /// A distinct count for each request; the 92nd Fibonacci number is the largest that fits `Int`.
    private static func count(for index: Int) -> Int {
        index % 93
    }

    /// The first `count` Fibonacci numbers.
    private static func fibonacci(_ count: Int) -> [Int] {
        var numbers: [Int] = []
        var (a, b) = (0, 1)
        for _ in 0..<count {
            numbers.append(a)
            (a, b) = (b, a &+ b)
        }
        return numbers
    }

    @Test func hundredConcurrentAsyncRequestsEachGetTheirResult() async throws {
        let proxy = try Servers.sampleProxy()
        let results = try await withThrowingTaskGroup(of: (Int, [Int]).self) { group in
            for index in 0..<Self.requestCount {
                group.addTask {
                    let numbers: [Int] = try await proxy.invoke(
                        .get, path: "fibonacci", arguments: ["count": Self.count(for: index)])
                    return (index, numbers)
                }
            }
            var results: [Int: [Int]] = [:]
            for try await (index, numbers) in group {
                results[index] = numbers
            }
            return results
        }
        #expect(results.count == Self.requestCount)
        for index in 0..<Self.requestCount {
            #expect(results[index] == Self.fibonacci(Self.count(for: index)), "request \(index)")
        }
    }

    @Test func hundredConcurrentCallbackRequestsEachGetTheirResult() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = CallbackQueues.make("concurrency.callbacks")
        let results = Protected<[Int: Result<[Int], any Error>]>([:])
        let calls = Protected(0)
        let tasks = Protected<[RequestTask?]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<Self.requestCount {
                let task = proxy.invoke(.get, path: "fibonacci", arguments: ["count": Self.count(for: index)]) {
                    (result: Result<[Int], any Error>) in
                    results.withLock { $0[index] = result }
                    let call = calls.withLock { count in
                        count += 1
                        return count
                    }
                    if call == Self.requestCount {
                        continuation.resume()
                    }
                }
                tasks.withLock { $0.append(task) }
            }
        }
        #expect(tasks.current.count == Self.requestCount)
        #expect(tasks.current.allSatisfy { $0 != nil })
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.current == Self.requestCount, "each handler runs exactly once")
        let received = results.current
        for index in 0..<Self.requestCount {
            let result = try #require(received[index], "request \(index) got no result")
            #expect(try result.get() == Self.fibonacci(Self.count(for: index)), "request \(index)")
        }
    }

    /// Where one callback request's response handler and result handler ran (the labels of
    /// ``CallbackQueues``; `nil` for any other queue), and what it delivered.
    private struct Decoding: Sendable {
        var index: Int
        var decodedOn: String?
        var deliveredOn: String?
        var result: Result<[Int], any Error>
    }

    /// Starts `count` callback requests at once, each decoding its response in a response
    /// handler, and waits for all their result handlers.
    private static func decodeConcurrently(_ count: Int, with proxy: WebServiceProxy) async -> [Decoding] {
        let decodedOn = Protected<[Int: String]>([:])
        let decodings = Protected<[Decoding]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<count {
                _ = proxy.invoke(
                    .get, path: "fibonacci", arguments: ["count": Self.count(for: index)],
                    responseHandler: { content, _ in
                        let label = DispatchQueue.getSpecific(key: CallbackQueues.labelKey) ?? Self.otherQueueLabel()
                        decodedOn.withLock { $0[index] = label }
                        return try JSONDecoder().decode([Int].self, from: content)
                    }
                ) { (result: Result<[Int], any Error>) in
                    let deliveredOn = DispatchQueue.getSpecific(key: CallbackQueues.labelKey)
                    let decoding = Decoding(
                        index: index, decodedOn: decodedOn.current[index], deliveredOn: deliveredOn, result: result)
                    if decodings.withLock({ $0.append(decoding); return $0.count == count }) {
                        continuation.resume()
                    }
                }
            }
        }
        return decodings.current
    }

    /// `"delegate queue"` on the test session's delegate queue, `"other"` elsewhere.
    private static func otherQueueLabel() -> String {
        #if KILO_ASYNC_HTTP_CLIENT
            "other"
        #else
            OperationQueue.current === Servers.session.delegateQueue ? "delegate queue" : "other"
        #endif
    }

    /// Checks that every request got its own numbers.
    private static func expectCorrectResults(_ decodings: [Decoding], count: Int) throws {
        #expect(decodings.count == count)
        for decoding in decodings {
            let expected = fibonacci(Self.count(for: decoding.index))
            #expect(try decoding.result.get() == expected, "request \(decoding.index)")
        }
    }

    @Test func manyCallbacksInFlightDecodeOffTheMainQueueAndDeliverOnIt() async throws {
        let proxy = try Servers.sampleProxy()  // callbacks on the main queue, the default
        let decodings = await Self.decodeConcurrently(Self.requestCount, with: proxy)
        try Self.expectCorrectResults(decodings, count: Self.requestCount)
        #expect(
            decodings.allSatisfy { $0.decodedOn != nil && $0.decodedOn != "main" }, "the main thread never decodes")
        #expect(decodings.allSatisfy { $0.deliveredOn == "main" })
    }

    /// A callback queue that targets the main queue runs on the main thread: a response is
    /// read off it, as for the main queue itself, and delivered on it.
    @Test func aCallbackQueueThatTargetsTheMainQueueNeverReadsResponses() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = DispatchQueue(label: "concurrency.targets-main", target: .main)
        let readOn = Protected<String?>(nil)
        let outcome: CallbackOutcome<[Int]> = try await callback { handler in
            proxy.invoke(
                .get,
                path: "fibonacci",
                arguments: ["count": 4],
                responseHandler: { content, _ in
                    readOn.withLock { $0 = DispatchQueue.getSpecific(key: CallbackQueues.labelKey) ?? "other" }
                    return try JSONDecoder().decode([Int].self, from: content)
                },
                resultHandler: handler
            )
        }
        #expect(try outcome.get() == [0, 1, 1, 2])
        #expect(readOn.current == "other", "never on the main queue")
        #expect(outcome.queueLabel == "main", "delivered on the queue, which runs on the main queue")
    }

    /// A response is decoded in the request's task, off the callback queue, and delivered on it,
    /// with other requests in flight or alone: one path for every callback request.
    @Test func callbacksDecodeOffTheCallbackQueueAndDeliverOnIt() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = CallbackQueues.make("concurrency.decoding")
        let decodings = await Self.decodeConcurrently(Self.requestCount, with: proxy)
        try Self.expectCorrectResults(decodings, count: Self.requestCount)
        #expect(decodings.allSatisfy { $0.deliveredOn == "concurrency.decoding" })
        #expect(decodings.allSatisfy { $0.decodedOn == "other" })
    }

    @Test func changingSettingsWhileRequestsRunIsSafe() async throws {
        let proxy = try Servers.sampleProxy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let echo: QueryEcho = try await proxy.invoke(.get, path: "echo/query", arguments: ["i": index])
                    #expect(echo.args == ["i": [String(index)]])
                }
                proxy.headers = ["X-Kilo-Index": String(index)]  // racing writes must stay safe
            }
            try await group.waitForAll()
        }
        let headers: [String: String] = try await proxy.invoke(.get, path: "echo/headers")
        #expect(headers["x-kilo-index"] == "19")
    }
}
