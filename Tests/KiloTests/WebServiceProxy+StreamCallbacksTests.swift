import Foundation
import Kilo
import Testing

/// The callback-style `stream` methods: a handler per element on the callback queue, then one
/// completion.
@Suite struct WebServiceProxyStreamCallbacksTests {
    /// What a callback-style stream delivered, as its handlers saw it.
    final class Deliveries<Element>: @unchecked Sendable {
        // `@unchecked Sendable`: every property is only read and written under `lock`.
        private let lock = NSLock()
        private var elementsSeen: [Element] = []
        private var completions: [Result<Void, any Error>] = []
        private var offQueue = 0
        private var continuation: CheckedContinuation<Void, Never>?

        let queue: DispatchQueue
        private let key = DispatchSpecificKey<Bool>()

        init(queue: DispatchQueue = DispatchQueue(label: "kilo.tests.stream-callbacks")) {
            self.queue = queue
            queue.setSpecific(key: key, value: true)
        }

        func element(_ element: Element) {
            let isOnQueue = DispatchQueue.getSpecific(key: key) == true
            lock.withLock {
                elementsSeen.append(element)
                offQueue += isOnQueue ? 0 : 1
            }
        }

        func complete(_ result: Result<Void, any Error>) {
            let isOnQueue = DispatchQueue.getSpecific(key: key) == true
            let waiting = lock.withLock {
                completions.append(result)
                offQueue += isOnQueue ? 0 : 1
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume()
        }

        /// Waits for the completion handler.
        func completion() async -> Result<Void, any Error> {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isDone = lock.withLock {
                    if completions.isEmpty { self.continuation = continuation }
                    return !completions.isEmpty
                }
                if isDone { continuation.resume() }
            }
            return lock.withLock { completions[0] }
        }

        var elements: [Element] { lock.withLock { elementsSeen } }
        var completionCount: Int { lock.withLock { completions.count } }
        var callsOffQueue: Int { lock.withLock { offQueue } }
    }

    @Test func elementsThenOneCompletionOnTheCallbackQueue() async throws {
        let deliveries = Deliveries<String>()
        let proxy = makeProxy(
            FakeTransport(streaming: [.text("a\nb\n"), .pause(0.01), .text("c\n")]),
            queue: deliveries.queue
        )
        let task = proxy.stream(
            .get,
            path: "log",
            as: .lines,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        #expect(task != nil)
        try await deliveries.completion().get()
        #expect(deliveries.elements == ["a", "b", "c"])
        #expect(deliveries.completionCount == 1)
        #expect(deliveries.callsOffQueue == 0)
        #expect(task?.state == .completed)
    }

    @Test func elementsKeepTheirOrderOnAConcurrentQueue() async throws {
        let deliveries = Deliveries<String>(
            queue: DispatchQueue(label: "kilo.tests.concurrent", attributes: .concurrent)
        )
        let lines = (0..<200).map { "line \($0)\n" }.joined()
        let proxy = makeProxy(FakeTransport(streaming: [.text(lines)]), queue: deliveries.queue)
        proxy.stream(
            .get,
            path: "log",
            as: .lines,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        try await deliveries.completion().get()
        #expect(deliveries.elements == (0..<200).map { "line \($0)" })
    }

    @Test func aJSONBodyStreamDecodesItsEvents() async throws {
        struct Chunk: Decodable, Equatable { var token: String }
        let deliveries = Deliveries<Chunk>()
        let transport = FakeTransport(
            headers: ["Content-Type": "text/event-stream"],
            streaming: [.text("data: {\"token\":\"Hi\"}\n\ndata: [DONE]\n\n")]
        )
        let proxy = makeProxy(transport, queue: deliveries.queue)
        try proxy.stream(
            .post,
            path: "chat",
            body: ["prompt": "Hello"],
            as: .serverSentEvents(of: Chunk.self, terminator: "[DONE]"),
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        try await deliveries.completion().get()
        #expect(deliveries.elements == [Chunk(token: "Hi")])
        #expect(text(await transport.requests.first) == #"{"prompt":"Hello"}"#)
    }

    @Test func anErrorCompletesAfterTheElementsBeforeIt() async throws {
        let deliveries = Deliveries<String>()
        let proxy = makeProxy(
            FakeTransport(streaming: [.text("a\n"), .failure(URLError(.networkConnectionLost))]),
            queue: deliveries.queue
        )
        proxy.stream(
            .get,
            path: "log",
            as: .lines,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        let result = await deliveries.completion()
        #expect((result.failure as? URLError)?.code == .networkConnectionLost)
        #expect(deliveries.elements == ["a"])
    }

    @Test func anEventStreamOfAnotherTypeCompletesWithUnexpectedContentTypeError() async throws {
        let deliveries = Deliveries<ServerSentEvent>()
        let transport = FakeTransport(statusCode: 200, body: #"{"answer":"whole"}"#)
        let proxy = makeProxy(transport, queue: deliveries.queue)
        proxy.stream(
            .get,
            path: "chat",
            as: .serverSentEvents,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        let failure = try #require(await deliveries.completion().failure as? UnexpectedContentTypeError)
        #expect(failure.contentType == "application/json")
        #expect(failure.body == Data(#"{"answer":"whole"}"#.utf8))
        #expect(deliveries.elements.isEmpty)
    }

    @Test func anErrorStatusCompletesWithWebServiceError() async throws {
        let deliveries = Deliveries<String>()
        let proxy = makeProxy(FakeTransport(statusCode: 503, body: "busy"), queue: deliveries.queue)
        proxy.stream(
            .get,
            path: "log",
            as: .lines,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        let result = await deliveries.completion()
        #expect((result.failure as? WebServiceError)?.statusCode == 503)
        #expect(deliveries.elements.isEmpty)
    }

    @Test func badInputCompletesWithItsErrorAndReturnsNoTask() async throws {
        let deliveries = Deliveries<String>()
        let transport = FakeTransport()
        let proxy = makeProxy(transport, queue: deliveries.queue)
        proxy.headers = ["Bad Name": "x"]
        let task = proxy.stream(
            .get,
            path: "log",
            as: .lines,
            elementHandler: deliveries.element,
            completionHandler: deliveries.complete
        )
        #expect(task == nil)
        #expect(await deliveries.completion().failure is RequestError)
        #expect(await transport.requests.isEmpty)
    }

    @Test func cancelStopsTheElementsAndCompletesWithCancelled() async throws {
        let cancelled = Flag()
        let transport = WebServiceProxyStreamingTests.endlessTransport(cancelled: cancelled)
        let deliveries = Deliveries<String>()
        let proxy = makeProxy(transport, queue: deliveries.queue)
        let task = try #require(
            proxy.stream(
                .get,
                path: "endless",
                as: .lines,
                elementHandler: deliveries.element,
                completionHandler: deliveries.complete
            )
        )
        while deliveries.elements.count < 3 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        deliveries.queue.sync { task.cancel() }  // as an app cancels from its callback queue
        let seen = deliveries.elements.count
        let result = await deliveries.completion()
        #expect((result.failure as? URLError)?.code == .cancelled)
        #expect(task.state == .cancelled)
        #expect(deliveries.elements.count == seen)
        #expect(cancelled.value)
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(deliveries.completionCount == 1)
        #expect(deliveries.elements.count == seen)
    }
}
