import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyCallbacksTests {
    @Test func everyVariantDeliversItsResult() async throws {
        let transport = FakeTransport(body: #"{"name":"Ann","born":0}"#)
        let proxy = makeProxy(transport)
        let person = Person(name: "Ann", born: Date(timeIntervalSince1970: 0))

        let void: Result<Void, any Error> = await result { proxy.invoke(.get, path: "a", resultHandler: $0) }
        let decoded: Result<Person, any Error> = await result { proxy.invoke(.get, path: "b", resultHandler: $0) }
        let bodyVoid: Result<Void, any Error> = await result {
            try! proxy.invoke(.put, path: "c", body: person, resultHandler: $0)  // a Person always encodes
        }
        let bodyDecoded: Result<Person, any Error> = await result {
            try! proxy.invoke(.post, path: "d", arguments: ["x": 1], body: person, resultHandler: $0)
        }
        let handled: Result<Int, any Error> = await result {
            proxy.invoke(.get, path: "e", responseHandler: { content, _ in content.count }, resultHandler: $0)
        }
        let withHeaders: Result<String?, any Error> = await result {
            proxy.invoke(.get, path: "f", responseHandler: { _, _, headers in headers["content-type"] }, resultHandler: $0)
        }

        #expect(throws: Never.self) { try void.get() }
        #expect(try decoded.get() == person)
        #expect(throws: Never.self) { try bodyVoid.get() }
        #expect(try bodyDecoded.get() == person)
        #expect(try handled.get() == 23)
        #expect(try withHeaders.get() == "application/json")
        #expect(await transport.requests.map(\.url.path) == ["a", "b", "c", "d", "e", "f"].map { "/v1/\($0)" })
        #expect(await transport.requests[3].url.query == "x=1")
    }

    @Test func resultHandlersRunOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "kilo.tests.callbacks")
        let proxy = makeProxy(FakeTransport(body: "[1]"), queue: queue)
        let onQueue: Result<Bool, any Error> = await result { handler in
            proxy.invoke(.get, path: "x") { (result: Result<[Int], any Error>) in
                dispatchPrecondition(condition: .onQueue(queue))
                handler(result.map { _ in true })
            }
        }
        #expect(try onQueue.get())
    }

    @Test func resultHandlersRunOnTheMainQueueByDefault() async throws {
        let proxy = WebServiceProxy(baseURL: baseURL, transport: FakeTransport(body: "[1]"))
        let onMain: Result<Bool, any Error> = await result { handler in
            proxy.invoke(.get, path: "x") { (result: Result<[Int], any Error>) in
                dispatchPrecondition(condition: .onQueue(.main))
                handler(result.map { _ in true })
            }
        }
        #expect(try onMain.get())
    }

    /// A response handler runs off the main queue, before the result handler: in the task of a
    /// transport without callbacks of its own (FakeTransport); for a CallbackTransport, on the
    /// callback queue itself, unless that is the main queue.
    @Test(arguments: [false, true])
    func responseHandlersRunInTheBackgroundBeforeTheResultHandler(callbackQueueIsMain: Bool) async throws {
        let queue = callbackQueueIsMain ? DispatchQueue.main : DispatchQueue(label: "kilo.tests.callbacks")
        for transport in [FakeTransport(body: "hello"), QueueTransport(body: "hello")] as [any Transport] {
            let proxy = makeProxy(transport, queue: queue)
            let order: Result<String, any Error> = await result { handler in
                proxy.invoke(
                    .get,
                    path: "x",
                    responseHandler: { content, _ in
                        dispatchPrecondition(condition: .notOnQueue(.main))
                        return String(decoding: content, as: UTF8.self) + " then"
                    },
                    resultHandler: { result in
                        dispatchPrecondition(condition: .onQueue(queue))
                        handler(result.map { $0 + " result" })
                    }
                )
            }
            #expect(try order.get() == "hello then result")
        }
    }

    @Test func badInputReturnsNoTaskAndFailsOnce() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        var task: RequestTask? = nil
        let failed: Result<Void, any Error> = await result { handler in
            task = proxy.invoke(.get, path: "x", arguments: ["": 1], resultHandler: handler)
            return task
        }
        #expect(task == nil)
        #expect(throws: ArgumentEncodingError.emptyKey) { try failed.get() }
        #expect(await transport.requests.isEmpty)
    }

    @Test func anErrorStatusFailsWithWebServiceError() async throws {
        let proxy = makeProxy(FakeTransport(statusCode: 500, body: "boom"))
        let failed: Result<[Int], any Error> = await result { proxy.invoke(.get, path: "x", resultHandler: $0) }
        let error = #expect(throws: WebServiceError.self) { try failed.get() }
        #expect(error?.statusCode == 500)
        #expect(error?.localizedDescription == "boom")
    }

    @Test func cancellingCallsTheHandlerExactlyOnceWithCancelled() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        let calls = Counter()
        let cancelled: Result<Void, any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "slow") { result in
                calls.increment()
                handler(result)
            }
            Task {
                while await transport.requests.isEmpty {
                    await Task.yield()
                }
                task?.cancel()
            }
            return task
        }
        let error = #expect(throws: URLError.self) { try cancelled.get() }
        #expect(error?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.value == 1)
    }

    @Test func cancellingAtOnceFailsWithCancelledEvenIfTheTransportAnswered() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport, queue: DispatchQueue(label: "kilo.tests.callbacks"))
        let cancelled: Result<Void, any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "x", resultHandler: handler)
            task?.cancel()
            return task
        }
        let error = #expect(throws: URLError.self) { try cancelled.get() }
        #expect(error?.code == .cancelled)
    }

    // A transport that implements start(_:completion:) itself: the path without a task.

    /// A transport that answers without ever suspending.
    private struct InstantTransport: Transport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data("[1]".utf8))
        }
    }

    @Test func aLoneRequestOverATransportThatNeverWaitsCanStillBeCancelledUntilItsHandlerRuns() async throws {
        // Off the main thread, a lone request's task runs at once on the calling thread: here it
        // finishes before `invoke` returns. The result waits for the callback queue, and the
        // cancellation that comes first wins.
        let queue = DispatchQueue(label: "kilo.tests.busy-callbacks")
        let proxy = makeProxy(InstantTransport(), queue: queue)
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let cancelled: Result<[Int], any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let task = proxy.invoke(.get, path: "x") { (result: Result<[Int], any Error>) in
                    continuation.resume(returning: Handoff(result: result))
                }
                task?.cancel()
                gate.signal()
            }
        }.result
        let error = #expect(throws: URLError.self) { try cancelled.get() }
        #expect(error?.code == .cancelled)

        let answered: Result<[Int], any Error> = await result { proxy.invoke(.get, path: "x", resultHandler: $0) }
        #expect(try answered.get() == [1])
    }

    @Test func aTransportsOwnStartCarriesCallbackRequests() async throws {
        let transport = QueueTransport(body: "[1,2]")
        let proxy = makeProxy(transport)
        let decoded: Result<[Int], any Error> = await result { proxy.invoke(.get, path: "x", resultHandler: $0) }
        #expect(try decoded.get() == [1, 2])
        #expect(transport.startedCount == 1)
    }

    @Test func cancellingARequestOnTheTransportsOwnStartCallsTheHandlerOnceWithCancelled() async throws {
        let transport = QueueTransport(body: "[1]", delay: .seconds(30))
        let proxy = makeProxy(transport)
        let calls = Counter()
        let cancelled: Result<[Int], any Error> = await result { handler in
            let task = proxy.invoke(.get, path: "slow") { (result: Result<[Int], any Error>) in
                calls.increment()
                handler(result)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { task?.cancel() }
            return task
        }
        let error = #expect(throws: URLError.self) { try cancelled.get() }
        #expect(error?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.value == 1)
    }

    /// The transport answers, but the callback queue is busy, so the result is not delivered
    /// when the task is cancelled: the handler gets `URLError(.cancelled)`, whether the response
    /// was still to be mapped or, with another request in flight on a transport whose completion
    /// may take its time, already mapped on the transport's queue.
    @Test(arguments: [false, true])
    func cancellingBeforeTheResultIsDeliveredFailsWithCancelled(mappedOnTransportQueue: Bool) async throws {
        let queue = DispatchQueue(label: "kilo.tests.busy-callbacks")
        let transport = QueueTransport(
            body: "[1]", delay: .milliseconds(20), completionMayTakeTime: mappedOnTransportQueue)
        let proxy = makeProxy(transport, queue: queue)
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let mappedOnTransport = Counter()
        let cancelled: Result<[Int], any Error> = await result { handler in
            let task = proxy.invoke(
                .get,
                path: "x",
                responseHandler: { content, _ in
                    if QueueTransport.isAnswering {
                        mappedOnTransport.increment()
                    }
                    return try JSONDecoder().decode([Int].self, from: content)
                },
                resultHandler: handler
            )
            if mappedOnTransportQueue {
                // Still in flight when x is answered.
                _ = proxy.invoke(.get, path: "y") { (_: Result<[Int], any Error>) in }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
                task?.cancel()
                gate.signal()
            }
            return task
        }
        let error = #expect(throws: URLError.self) { try cancelled.get() }
        #expect(error?.code == .cancelled)
        // Mapped on the transport's queue, then cancelled while it waited for the callback queue;
        // or cancelled before it was mapped at all.
        #expect(mappedOnTransport.value == (mappedOnTransportQueue ? 1 : 0))
    }

    /// Where the transport's completion may take its time, a response that arrives while
    /// others of the proxy are in flight is mapped there; a lone one on the callback queue.
    /// Starts requests whose response handlers count where they ran: on the transport's queue,
    /// or on `queue`, the proxy's callback queue.
    private struct MappingProbe: Sendable {
        let mappedOnTransportQueue = Counter()
        let mappedOnCallbackQueue = Counter()
        let deliveredElsewhere = Counter()
        let start: @Sendable (@escaping WebServiceProxy.ResultHandler<String>) -> RequestTask?

        init(_ transport: QueueTransport) {
            let queue = DispatchQueue(label: "kilo.tests.callbacks")
            let callbackQueueKey = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: callbackQueueKey, value: true)
            let proxy = makeProxy(transport, queue: queue)
            let (onTransport, onCallbackQueue, elsewhere) =
                (mappedOnTransportQueue, mappedOnCallbackQueue, deliveredElsewhere)
            start = { handler in
                proxy.invoke(
                    .get,
                    path: "x",
                    responseHandler: { content, _ in
                        if QueueTransport.isAnswering {
                            onTransport.increment()
                        } else if DispatchQueue.getSpecific(key: callbackQueueKey) == true {
                            onCallbackQueue.increment()
                        }
                        return String(decoding: content, as: UTF8.self)
                    },
                    resultHandler: { result in
                        if DispatchQueue.getSpecific(key: callbackQueueKey) != true {
                            elsewhere.increment()
                        }
                        handler(result)
                    }
                )
            }
        }

        /// Sends two requests at once, and waits for both.
        func sendTwoAtOnce() async throws {
            async let first: Result<String, any Error> = result(start)
            async let second: Result<String, any Error> = result(start)
            #expect(try await first.get() == "[1]")
            #expect(try await second.get() == "[1]")
        }
    }

    @Test func responsesAreMappedOnTheTransportsQueueWhileOthersAreInFlight() async throws {
        // A long delay, so that both requests are surely in flight when the first is answered.
        let probe = MappingProbe(
            QueueTransport(body: "[1]", delay: .seconds(2), completionMayTakeTime: true))
        try await probe.sendTwoAtOnce()
        // The transport's serial queue answers one, with the other still in flight, then the other.
        #expect(probe.mappedOnTransportQueue.value == 1)
        #expect(probe.mappedOnCallbackQueue.value == 1)

        let lone: Result<String, any Error> = await result(probe.start)
        #expect(try lone.get() == "[1]")
        #expect(probe.mappedOnTransportQueue.value == 1)
        #expect(probe.mappedOnCallbackQueue.value == 2)
        #expect(probe.deliveredElsewhere.value == 0)
    }

    @Test func aTransportThatReportsTwiceLeavesTheCountOfRequestsInFlightRight() async throws {
        let probe = MappingProbe(
            QueueTransport(
                body: "[1]", delay: .seconds(2), reportsTwice: true, completionMayTakeTime: true))
        let lone: Result<String, any Error> = await result(probe.start)
        #expect(try lone.get() == "[1]")
        // Counted down once, not twice: of two requests at once, the first answered still maps on
        // the transport's queue.
        try await probe.sendTwoAtOnce()
        #expect(probe.mappedOnTransportQueue.value == 1)
        #expect(probe.mappedOnCallbackQueue.value == 2)
    }

    @Test(arguments: [false, true])
    func aTransportThatReportsTwiceStillCallsTheHandlerOnce(completionMayTakeTime: Bool) async throws {
        let proxy = makeProxy(
            QueueTransport(body: "[1]", reportsTwice: true, completionMayTakeTime: completionMayTakeTime))
        let calls = Counter()
        let decoded: Result<[Int], any Error> = await result { handler in
            proxy.invoke(.get, path: "x") { (result: Result<[Int], any Error>) in
                calls.increment()
                handler(result)
            }
        }
        #expect(try decoded.get() == [1])
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.value == 1)
    }
}
