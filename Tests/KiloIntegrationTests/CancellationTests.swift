import Foundation
import Kilo
import Testing

/// Checks that cancelling a request in flight stops it quickly and reports `URLError.cancelled`
/// exactly once.
@Suite(
    .enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"),
    .enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)")
)
struct CancellationTests {
    /// How long a test waits after the first result, to catch a second call of the handler.
    private static let settleTime = Duration.seconds(1)

    /// A cancelled request must end before its server answers, which only a cancel that ends the
    /// transfer allows. The servers take long, so that the bounds leave room for a busy machine,
    /// which can hold up a full parallel run for many seconds: httpbin's `/drip` answers after
    /// 120 s here (its `/delay` stops at 10 s); the sample service's `/slow` after 30 s, its most,
    /// so there the bound is the server's delay itself.
    private static let quickly = Duration.seconds(60)
    private static let quicklyForSample = Duration.seconds(30)

    // MARK: Callbacks

    @Test func callbackCancelDuringHttpbinDelayReportsCancelledOnce() async throws {
        let proxy = try Servers.httpbinProxy()
        proxy.callbackQueue = CallbackQueues.make("cancel.httpbin")
        let start = ContinuousClock.now
        let outcome: CallbackOutcome<HttpbinEcho> = try await callback { handler in
            let task = proxy.invoke(
                .get,
                path: "drip",
                arguments: ["delay": 120, "numbytes": 1, "duration": 0],
                resultHandler: handler
            )
            Self.cancel(task, after: .milliseconds(300))
            return task
        }
        #expect(ContinuousClock.now - start < Self.quickly)
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.queueLabel == "cancel.httpbin")
        #expect(outcome.task?.isCancelled == true)
        try await Task.sleep(for: Self.settleTime)
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func callbackCancelDuringSlowSampleRequestReportsCancelledOnce() async throws {
        let proxy = try Servers.sampleProxy()  // results on the main queue, the default
        let start = ContinuousClock.now
        let outcome: CallbackOutcome<Slept> = try await callback { handler in
            let task = proxy.invoke(.get, path: "slow", arguments: ["seconds": 30], resultHandler: handler)
            Self.cancel(task, after: .milliseconds(300))
            return task
        }
        #expect(ContinuousClock.now - start < Self.quicklyForSample)
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.queueLabel == "main")
        try await Task.sleep(for: Self.settleTime)
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func callbackCancelRightAfterStartReportsCancelledOnce() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = CallbackQueues.make("cancel.immediate")
        let outcome: CallbackOutcome<Slept> = try await callback { handler in
            let task = proxy.invoke(.get, path: "slow", arguments: ["seconds": 10], resultHandler: handler)
            task?.cancel()
            return task
        }
        #expect((outcome.error as? URLError)?.code == .cancelled)
        try await Task.sleep(for: Self.settleTime)
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func callbackCancelAfterCompletionChangesNothing() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = CallbackQueues.make("cancel.late")
        let outcome: CallbackOutcome<[Int]> = try await callback {
            proxy.invoke(.get, path: "fibonacci", arguments: ["count": 4], resultHandler: $0)
        }
        outcome.task?.cancel()
        try await Task.sleep(for: .milliseconds(500))
        #expect(try outcome.get() == [0, 1, 1, 2])
        #expect(outcome.handlerCalls.current == 1)
    }

    /// A `cancel()` that returns while the response is still being read, before the result is
    /// delivered, wins: the handler gets `URLError.cancelled`, not the value read.
    @Test func callbackCancelWhileTheResponseIsReadReportsCancelledOnce() async throws {
        let proxy = try Servers.httpbinProxy()
        proxy.callbackQueue = CallbackQueues.make("cancel.reading")
        let reading = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let outcome: CallbackOutcome<Int> = try await callback { handler in
            let task = proxy.invoke(
                .get,
                path: "get",
                responseHandler: { content, _ in
                    reading.signal()
                    cancelled.wait()
                    return content.count
                },
                resultHandler: handler
            )
            DispatchQueue.global().async {
                reading.wait()
                task?.cancel()
                cancelled.signal()
            }
            return task
        }
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.queueLabel == "cancel.reading")
        try await Task.sleep(for: Self.settleTime)
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func cancellingOneCallbackRequestLeavesOthersRunning() async throws {
        let proxy = try Servers.sampleProxy()
        proxy.callbackQueue = CallbackQueues.make("cancel.one-of-two")
        async let kept: CallbackOutcome<Slept> = callback {
            proxy.invoke(.get, path: "slow", arguments: ["seconds": 1], resultHandler: $0)
        }
        let cancelled: CallbackOutcome<Slept> = try await callback { handler in
            let task = proxy.invoke(.get, path: "slow", arguments: ["seconds": 30], resultHandler: handler)
            Self.cancel(task, after: .milliseconds(200))
            return task
        }
        #expect((cancelled.error as? URLError)?.code == .cancelled)
        #expect(try await kept.get().slept == 1)
    }

    private static func cancel(_ task: RequestTask?, after delay: Duration) {
        Task {
            try await Task.sleep(for: delay)
            task?.cancel()
        }
    }

    // MARK: async

    @Test func asyncCancelDuringHttpbinDelayThrowsCancelled() async throws {
        let proxy = try Servers.httpbinProxy()
        let start = ContinuousClock.now
        let request = Task { () async throws -> HttpbinEcho in
            try await proxy.invoke(.get, path: "drip", arguments: ["delay": 120, "numbytes": 1, "duration": 0])
        }
        try await Task.sleep(for: .milliseconds(300))
        request.cancel()
        let result = await request.result
        #expect(ContinuousClock.now - start < Self.quickly)
        #expect((result.failure as? URLError)?.code == .cancelled)
    }

    @Test func asyncCancelDuringSlowSampleRequestThrowsCancelled() async throws {
        let proxy = try Servers.sampleProxy()
        let start = ContinuousClock.now
        let request = Task { () async throws -> Slept in
            try await proxy.invoke(.get, path: "slow", arguments: ["seconds": 30])
        }
        try await Task.sleep(for: .milliseconds(300))
        request.cancel()
        let result = await request.result
        #expect(ContinuousClock.now - start < Self.quicklyForSample)
        #expect((result.failure as? URLError)?.code == .cancelled)
    }

    @Test func asyncCancelDuringVoidAndHandlerRequestsThrowsCancelled() async throws {
        let proxy = try Servers.httpbinProxy()
        let void = Task { try await proxy.invoke(.post, path: "delay/10", arguments: ["a": 1]) }
        let handled = Task {
            try await proxy.invoke(.get, path: "delay/10", responseHandler: { content, _ in content.count })
        }
        try await Task.sleep(for: .milliseconds(300))
        void.cancel()
        handled.cancel()
        #expect((await void.result.failure as? URLError)?.code == .cancelled)
        #expect((await handled.result.failure as? URLError)?.code == .cancelled)
    }

    @Test func asyncCancelBeforeSendingThrowsCancelled() async throws {
        let proxy = try Servers.sampleProxy()
        let request = Task { () async throws -> [Int] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await proxy.invoke(.get, path: "fibonacci", arguments: ["count": 3])
        }
        #expect((await request.result.failure as? URLError)?.code == .cancelled)
    }
}
