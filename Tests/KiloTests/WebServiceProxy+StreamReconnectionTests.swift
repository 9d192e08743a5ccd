import Foundation
import Kilo
import Testing

/// Event streams that reconnect as `EventSource` does, through a ``FakeTransport`` whose answer
/// depends on the attempt.
///
/// The policies wait a minute before a reconnection unless the server's `retry` field says
/// otherwise, so a test that ignored `retry` would hit its time limit.
@Suite(.timeLimit(.minutes(1)))
struct WebServiceProxyStreamReconnectionTests {
    /// A fake that answers the nth request with `responses[n]`, and fails to connect after the last.
    static func transport(_ responses: [@Sendable () -> StreamedResponse]) -> FakeTransport {
        let attempts = Counter()
        return FakeTransport.streaming { _ in
            attempts.increment()
            let attempt = attempts.value
            guard attempt <= responses.count else { throw URLError(.cannotConnectToHost) }
            return responses[attempt - 1]()
        }
    }

    static func events(_ steps: [FakeTransport.BodyStep], status: Int = 200) -> @Sendable () -> StreamedResponse {
        {
            StreamedResponse(
                statusCode: status,
                headers: ["Content-Type": "text/event-stream"],
                body: FakeTransport.body(steps)
            )
        }
    }

    static let slow = EventStreamReconnection(delay: 60)

    @Test func aLostOrEndedConnectionResumesFromTheLastEventID() async throws {
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\nid: 2\ndata: b\n\ndata: cut off")]),
            Self.events([.text("id: 3\ndata: c\n\n"), .failure(URLError(.networkConnectionLost))]),
            Self.events([], status: 204),
        ])
        let proxy = makeProxy(transport)
        let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: Self.slow))
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b", "c"])
        let requests = await transport.requests
        #expect(requests.map { $0.headers["Last-Event-ID"] } == [nil, "2", "3"])
        #expect(requests.allSatisfy { $0.headers["Accept"] == "text/event-stream" })
    }

    @Test func aDecodedStreamReconnectsUntilItsTerminator() async throws {
        struct Tick: Decodable, Equatable { var index: Int }
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: {\"index\":1}\n\n")]),
            Self.events([.text("id: 2\ndata: {\"index\":2}\n\ndata: [DONE]\n\n")]),
        ])
        let proxy = makeProxy(transport)
        let stream = try await proxy.stream(
            .get,
            path: "ticks",
            as: .serverSentEvents(of: Tick.self, terminator: "[DONE]", reconnecting: Self.slow)
        )
        let (ticks, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(error == nil)
        #expect(ticks == [Tick(index: 1), Tick(index: 2)])
        #expect(await transport.requests.count == 2)
    }

    @Test func anErrorStatusOnReconnectingEndsTheStreamWithIt() async throws {
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\n")]),
            { StreamedResponse(statusCode: 503, body: ResponseBody(Data("down".utf8))) },
            Self.events([.text("data: never\n\n")]),
        ])
        let proxy = makeProxy(transport)
        let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: Self.slow))
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(events.map(\.data) == ["a"])
        let failure = try #require(error as? WebServiceError)
        #expect(failure.statusCode == 503)
        #expect(failure.body == Data("down".utf8))
        #expect(await transport.requests.count == 2)
    }

    /// A reconnection answered with a 200 of another type, a proxy's login page say, ends the
    /// stream rather than being parsed as events and asked again.
    @Test func aResponseOfAnotherTypeOnReconnectingEndsTheStreamWithIt() async throws {
        let page = "<html>sign in</html>"
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\n")]),
            {
                let headers: HTTPHeaders = ["Content-Type": "text/html"]
                return StreamedResponse(statusCode: 200, headers: headers, body: ResponseBody(Data(page.utf8)))
            },
            Self.events([.text("data: never\n\n")]),
        ])
        let proxy = makeProxy(transport)
        let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: Self.slow))
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(events.map(\.data) == ["a"])
        let failure = try #require(error as? UnexpectedContentTypeError)
        #expect(failure.contentType == "text/html")
        #expect(failure.body == Data(page.utf8))
        #expect(await transport.requests.count == 2)
    }

    /// A 204 No Content ends a reconnecting stream whatever its type, or with none.
    @Test func aNoContentReconnectionOfAnyTypeEndsTheStream() async throws {
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\n")]),
            { StreamedResponse(statusCode: 204, body: ResponseBody()) },
            Self.events([.text("data: never\n\n")]),
        ])
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(events.map(\.data) == ["a"])
        #expect(error == nil)
        #expect(await transport.requests.count == 2)
    }

    @Test func aFirstResponseWithNoContentIsNotReconnected() async throws {
        let transport = Self.transport([Self.events([], status: 204), Self.events([.text("data: never\n\n")])])
        let proxy = makeProxy(transport)
        let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: Self.slow))
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(error == nil)
        #expect(events.isEmpty)
        #expect(await transport.requests.count == 1)
    }

    @Test func reconnectionsThatBringNoEventStopAtTheMaximum() async throws {
        let transport = Self.transport([Self.events([.text("retry: 1\ndata: a\n\n")])])  // then refused
        let proxy = makeProxy(transport)
        let policy = EventStreamReconnection(delay: 60, maximumAttempts: 3)
        let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: policy))
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(events.map(\.data) == ["a"])
        #expect((error as? URLError)?.code == .cannotConnectToHost)
        #expect(await transport.requests.count == 4)
    }

    /// A server that ends every response at once with `retry: 0` is asked again after half a
    /// second, then after 1 second, then 2, and so on up to a minute: not hundreds of times a
    /// second. (A busy machine only makes the gaps longer.)
    @Test func reconnectionsThatBringNoEventBackOff() async throws {
        let times = Locked<[UInt64]>([])
        let transport = FakeTransport.streaming { _ in
            times.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) }
            return Self.events([.text("retry: 0\n\n")])()
        }
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let reader = Task {
            for try await _ in stream {}
        }
        while times.withLock({ $0.count }) < 4 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        stream.cancel()
        #expect((await reader.result.failure as? URLError)?.code == .cancelled)
        let requests = times.withLock { $0 }
        let gaps = zip(requests.dropFirst(), requests).map { Double($0 - $1) / 1e9 }
        #expect(gaps.count >= 3)
        #expect(gaps.dropFirst().first.map { $0 >= 0.95 } == true, "\(gaps)")
        #expect(gaps.dropFirst(2).first.map { $0 >= 1.95 } == true, "\(gaps)")
    }

    @Test func withoutReconnectionAnEndedStreamEnds() async throws {
        let transport = Self.transport([
            Self.events([.text("retry: 1\ndata: a\n\n")]), Self.events([.text("data: b\n\n")]),
        ])
        let proxy = makeProxy(transport)
        let (events, error) = await WebServiceProxyStreamingTests.drain(
            try await proxy.stream(.get, path: "events", as: .serverSentEvents)
        )
        #expect(error == nil)
        #expect(events.map(\.data) == ["a"])
        #expect(await transport.requests.count == 1)
    }

    /// `stream.cancel()`, not the reader's task, stops the wait for the server's `retry`: the
    /// policy's minute would pass the suite's time limit.
    @Test func cancellingTheStreamWhileWaitingToReconnectStops() async throws {
        let transport = Self.transport([Self.events([.text("data: a\n\n")]), Self.events([.text("data: b\n\n")])])
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let seen = Counter()
        let reader = Task {
            for try await _ in stream {
                seen.increment()
            }
        }
        while seen.value == 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        try await Task.sleep(nanoseconds: 100_000_000)  // the first body has ended; the stream waits
        stream.cancel()
        #expect((await reader.result.failure as? URLError)?.code == .cancelled)
        #expect(await transport.requests.count == 1)
    }

    /// `stream.cancel()` stops a reconnection whose response never comes.
    @Test func cancellingTheStreamWhileAReconnectionIsUnansweredStops() async throws {
        let reconnected = Counter()
        let transport = FakeTransport.streaming { request in
            guard request.headers["Last-Event-ID"] == nil else {
                reconnected.increment()
                try await Task.sleep(nanoseconds: 3_600_000_000_000)  // never answers
                throw URLError(.timedOut)
            }
            return Self.events([.text("retry: 1\nid: 1\ndata: a\n\n")])()
        }
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let reader = Task {
            var seen: [String] = []
            for try await event in stream {
                seen.append(event.data)
            }
            return seen
        }
        while reconnected.value == 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        stream.cancel()
        #expect((await reader.result.failure as? URLError)?.code == .cancelled)
    }

    /// An ID that no header field can carry (a control character) is not sent back; the stream
    /// reconnects as if the server had given none.
    @Test(arguments: ["a\u{1}b", "a\u{7F}"])
    func anEventIDNoFieldCanCarryIsNotSentBack(id: String) async throws {
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\nid: \(id)\ndata: b\n\n")]),
            Self.events([.text("id: 4096\ndata: c\n\n")]),
            Self.events([], status: 204),
        ])
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b", "c"])
        let requests = await transport.requests
        #expect(requests.map { $0.headers["Last-Event-ID"] } == [nil, nil, "4096"])
    }

    /// An `id` over the 4 KiB a `Last-Event-ID` field carries back is ignored when it comes, as
    /// one with NUL is: the ID before it stays the last event ID, in the later events and in the
    /// field sent back. An ID of 4 KiB goes back whole.
    @Test func anEventIDOver4KiBIsIgnoredSoTheOneBeforeGoesBack() async throws {
        let (over, at) = (String(repeating: "7", count: 4097), String(repeating: "8", count: 4096))
        let transport = Self.transport([
            Self.events([.text("retry: 1\nid: 1\ndata: a\n\nid: \(over)\ndata: b\n\ndata: c\n\n")]),
            Self.events([.text("id: \(at)\ndata: d\n\n")]),
            Self.events([], status: 204),
        ])
        let stream = try await makeProxy(transport).stream(
            .get,
            path: "events",
            as: .serverSentEvents(reconnecting: Self.slow)
        )
        let (events, error) = await WebServiceProxyStreamingTests.drain(stream)
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b", "c", "d"])
        #expect(events.map(\.lastEventID) == ["1", "1", "1", at])
        let requests = await transport.requests
        #expect(requests.map { $0.headers["Last-Event-ID"] } == [nil, "1", at])
    }

    @Test func cancellingWhileWaitingToReconnectStops() async throws {
        let transport = Self.transport([Self.events([.text("data: a\n\n")]), Self.events([.text("data: b\n\n")])])
        let proxy = makeProxy(transport)
        let reader = Task {
            var seen: [String] = []
            let stream = try await proxy.stream(.get, path: "events", as: .serverSentEvents(reconnecting: Self.slow))
            for try await event in stream {
                seen.append(event.data)
            }
            return seen
        }
        while await transport.requests.isEmpty {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        try await Task.sleep(nanoseconds: 100_000_000)  // the first stream has ended; the stream waits 60 s
        reader.cancel()
        let result = await reader.result
        #expect((result.failure as? URLError)?.code == .cancelled)
        #expect(await transport.requests.count == 1)
    }
}
