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
