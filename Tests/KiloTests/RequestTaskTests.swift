import Foundation
import Kilo
import Testing

/// A callback request's task tells where it stands and how far it has come, as Kilo 3.x's
/// `URLSessionDataTask` did.
@Suite struct RequestTaskTests {
    @Test func aTaskRunsThenCompletes() async throws {
        let gate = Gate()
        let transport = FakeTransport { _ in
            await gate.wait()
            return TransportResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data("[1]".utf8))
        }
        let proxy = makeProxy(transport)
        let started = TaskBox()
        let outcome: Result<[Int], any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "x", resultHandler: handler)
            started.task = task
            #expect(task?.state == .running)
            Task { await gate.open() }
            return task
        }
        #expect(try outcome.get() == [1])
        #expect(started.task?.state == .completed)
    }

    @Test func aCancelledTaskSaysSo() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        let started = TaskBox()
        let outcome: Result<Void, any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "x", resultHandler: handler)
            started.task = task
            task?.cancel()
            return task
        }
        #expect((try? outcome.get()) == nil)
        #expect(started.task?.state == .cancelled)
        #expect(started.task?.isCancelled == true)
    }

    @Test func aFailedRequestIsCompletedNotCancelled() async throws {
        let proxy = makeProxy(FakeTransport(statusCode: 500, body: "down"))
        let started = TaskBox()
        let outcome: Result<Void, any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "x", resultHandler: handler)
            started.task = task
            return task
        }
        #expect(throws: WebServiceError.self) { try outcome.get() }
        #expect(started.task?.state == .completed)
    }

    /// The task's `Progress` follows the bytes sent and received, and ends complete.
    @Test func progressFollowsTheTransfer() async throws {
        let body = Data(repeating: 7, count: 3000)
        let transport = FakeTransport(statusCode: 200, data: body, headers: ["Content-Length": "3000"])
        let proxy = makeProxy(transport)
        let started = TaskBox()
        let outcome: Result<Data, any Error> = await result { handler in
            let task = proxy.invoke(
                .post,
                path: "x",
                content: Data(count: 1000),
                responseHandler: { content, _ in content },
                resultHandler: handler
            )
            started.task = task
            return task
        }
        #expect(try outcome.get() == body)
        let progress = try #require(started.task?.progress)
        #expect(progress.completedUnitCount == 4000)
        #expect(progress.totalUnitCount == 4000)
        #expect(progress.fractionCompleted == 1)
    }

    /// Cancelling the `Progress` (a progress view's cancel button) cancels the request.
    @Test func cancellingTheProgressCancelsTheRequest() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        let outcome: Result<Void, any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "x", resultHandler: handler)
            task?.progress.cancel()
            return task
        }
        let error = #expect(throws: URLError.self) { try outcome.get() }
        #expect(error?.code == .cancelled)
    }
}

/// Holds a started task for a test to look at after its handler ran.
private final class TaskBox: @unchecked Sendable {
    // `@unchecked Sendable`: set once before the handler runs, read after it.
    var task: RequestTask?
}

/// Holds a fake's answer until the test opens it.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters = []
    }
}
