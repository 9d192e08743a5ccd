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

    /// A response handler runs off the main queue, in the request's task, before the result
    /// handler.
    @Test(arguments: [false, true])
    func responseHandlersRunInTheBackgroundBeforeTheResultHandler(callbackQueueIsMain: Bool) async throws {
        let queue = callbackQueueIsMain ? DispatchQueue.main : DispatchQueue(label: "kilo.tests.callbacks")
        for transport in [FakeTransport(body: "hello")] as [any Transport] {
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

    /// A transport that answers without ever suspending.
    private struct InstantTransport: Transport {
        func stream(_ request: TransportRequest) async throws -> StreamedResponse {
            StreamedResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: ResponseBody(Data("[1]".utf8)))
        }
    }

    @Test func aLoneRequestOverATransportThatNeverWaitsCanStillBeCancelledUntilItsHandlerRuns() async throws {
        // The result waits for the callback queue, and the cancellation that comes first wins.
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
}
