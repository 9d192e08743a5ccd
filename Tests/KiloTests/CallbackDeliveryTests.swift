import Foundation
import Kilo
import Testing

/// Where a callback method's handlers run, and which handler a trailing closure is: passed from
/// main-actor code, a handler runs on the main actor whatever the callback queue is (before, a
/// closure inside it, such as `result.map { … }`, trapped in `dispatch_assert_queue` on a queue of
/// one's own); passed from an actor, on that actor; passed from code isolated to no actor, on the
/// callback queue.
@Suite struct CallbackDeliveryTests {
    /// In an `async` function, an untyped trailing closure is the callback `invoke`'s result
    /// handler, not the `async` `invoke`'s progress handler (this test compiles only if it is).
    @Test func untypedTrailingClosureInAnAsyncFunctionIsTheResultHandler() async throws {
        let proxy = makeProxy(FakeTransport(statusCode: 204, body: ""))
        let outcome: Result<Void, any Error> = await withCheckedContinuation { continuation in
            let task = proxy.invoke(.delete, path: "items/1") { result in
                continuation.resume(returning: result)
            }
            #expect(task != nil)
        }
        #expect(throws: Never.self) { try outcome.get() }
    }

    @MainActor
    @Test func mainActorHandlerRunsOnTheMainActorWhateverTheCallbackQueue() async throws {
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: DispatchQueue(label: "kilo.tests.own"))
        let count: Int = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "numbers") { (result: Result<[Int], any Error>) in
                MainActor.assertIsolated()
                continuation.resume(returning: (try? result.map { $0.count }.get()) ?? -1)
            }
        }
        #expect(count == 3)
    }

    /// A `@Sendable` handler may run anywhere; passed from main-actor code, it runs there too.
    @MainActor
    @Test func sendableHandlerPassedFromMainActorCodeRunsOnTheMainActor() async throws {
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: DispatchQueue(label: "kilo.tests.own"))
        let count: Int = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "numbers") { @Sendable (result: Result<[Int], any Error>) in
                MainActor.assertIsolated()
                continuation.resume(returning: (try? result.map { $0.count }.get()) ?? -1)
            }
        }
        #expect(count == 3)
    }

    /// A closure stored first in a variable of Kilo 3.x's plain `ResultHandler` type is still the
    /// main actor's: the caller's isolation, not the closure's type, says where it runs.
    @MainActor
    @Test func handlerStoredInMainActorCodeRunsOnTheMainActor() async throws {
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: DispatchQueue(label: "kilo.tests.own"))
        let count: Int = await withCheckedContinuation { continuation in
            let handler: WebServiceProxy.ResultHandler<[Int]> = { result in
                MainActor.assertIsolated()
                continuation.resume(returning: (try? result.map { $0.count }.get()) ?? -1)
            }
            proxy.invoke(.get, path: "numbers", resultHandler: handler)
        }
        #expect(count == 3)
    }

    /// From code isolated to no actor (a `@Sendable` closure, here), the handler runs on the
    /// callback queue, even when that code was written in main-actor code.
    @MainActor
    @Test func handlerPassedFromNonisolatedCodeRunsOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "kilo.tests.own")
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: queue)
        let count: Int = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                proxy.invoke(.get, path: "numbers") { (result: Result<[Int], any Error>) in
                    dispatchPrecondition(condition: .onQueue(queue))
                    continuation.resume(returning: (try? result.map { $0.count }.get()) ?? -1)
                }
            }
        }
        #expect(count == 3)
    }

    @Test func nonisolatedHandlerRunsOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "kilo.tests.own")
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: queue)
        let count: Int = await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "numbers") { (result: Result<[Int], any Error>) in
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(returning: (try? result.map { $0.count }.get()) ?? -1)
            }
        }
        #expect(count == 3)
    }

    @Test func handlerWrittenInAnActorRunsOnThatActor() async throws {
        let proxy = makeProxy(FakeTransport(body: "[1,2,3]"), queue: DispatchQueue(label: "kilo.tests.own"))
        let store = NumberStore()
        #expect(await store.load(with: proxy) == 3)
    }

    @MainActor
    @Test func mainActorStreamHandlersRunOnTheMainActor() async throws {
        let proxy = makeProxy(
            FakeTransport(streaming: [.text("a\nbb\n"), .text("ccc\n")]),
            queue: DispatchQueue(label: "kilo.tests.own")
        )
        var lengths: [Int] = []
        let completion: Result<Void, any Error> = await withCheckedContinuation { continuation in
            proxy.stream(.get, path: "lines", as: .lines) { line in
                MainActor.assertIsolated()
                lengths.append([line].map { $0.count }[0])
            } completionHandler: { result in
                MainActor.assertIsolated()
                continuation.resume(returning: result)
            }
        }
        #expect(throws: Never.self) { try completion.get() }
        #expect(lengths == [1, 2, 3])
    }

    @MainActor
    @Test func mainActorHandlerOfRefusedInputRunsOnTheMainActor() async throws {
        let proxy = makeProxy(FakeTransport(), queue: DispatchQueue(label: "kilo.tests.own"))
        let failed: Bool = await withCheckedContinuation { continuation in
            let task = proxy.invoke(.get, path: "x", content: Data("body".utf8)) { (result: Result<Void, any Error>) in
                MainActor.assertIsolated()
                continuation.resume(returning: (try? result.map { true }.get()) == nil)
            }
            #expect(task == nil)
        }
        #expect(failed)
    }
}

/// Loads numbers with a handler isolated to this actor.
private actor NumberStore {
    private var count = 0

    func load(with proxy: WebServiceProxy) async -> Int {
        await withCheckedContinuation { continuation in
            proxy.invoke(.get, path: "numbers") { (result: Result<[Int], any Error>) in
                self.assertIsolated()
                self.count = (try? result.map { $0.count }.get()) ?? -1
                continuation.resume(returning: self.count)
            }
        }
    }
}
