import Foundation
import Kilo
import Testing

/// Server-sent events from sse-starlette, a server Kilo's own code did not write: events arrive
/// as they are sent, stopping a stream closes its connection, reconnection resumes, memory
/// stays flat.
@Suite(.enabled(if: SSEServer.url != nil, "needs KILO_SSE_URL (run Scripts/test.sh)"))
struct EventServerStreamingTests {
    struct Tick: Decodable, Sendable, Equatable {
        var index: Int
        var tag: String
    }

    private let proxy: WebServiceProxy

    init() throws {
        proxy = try SSEServer.proxy()
    }

    @Test func eventsArriveWithTheirFieldsAndCommentsAreSkipped() async throws {
        let tag = SSEServer.makeTag("fields")
        let events = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 3, "delay": 0.2, "ping": 0.05, "tag": tag],
            as: .serverSentEvents
        )
        let (received, error) = await drain(events)
        #expect(error == nil)
        #expect(received.map(\.type) == ["tick", "tick", "tick"])
        #expect(received.map(\.lastEventID) == ["1", "2", "3"])
        #expect(received.first?.data == #"{"index": 1, "tag": "\#(tag)"}"#)
    }

    @Test func theFirstEventArrivesBeforeTheServerHasSentTheLast() async throws {
        let tag = SSEServer.makeTag("live")
        let ticks = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 10, "delay": 5, "tag": tag],
            as: .serverSentEvents(of: Tick.self)
        )
        var iterator = ticks.makeAsyncIterator()
        #expect(try await iterator.next() == Tick(index: 1, tag: tag))
        // The server waits 5 s before each later event, 45 s in all: the stream it is sending is
        // still open, however loaded the machine. (Leaving the test cancels it.)
        let outcomes = try await SSEServer.outcomes(tag)
        #expect(outcomes.active == 1)
        #expect(outcomes.completed == 0)
    }

    @Test func leavingTheLoopClosesTheConnection() async throws {
        let tag = SSEServer.makeTag("break")
        let events = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 10_000, "delay": 0.05, "tag": tag],
            as: .serverSentEvents
        )
        var seen = 0
        for try await _ in events {
            seen += 1
            if seen == 3 { break }
        }
        let outcomes = try await SSEServer.waitForOutcomes(tag) { $0.disconnected == 1 }
        #expect(outcomes == SSEServer.Outcomes(disconnected: 1, completed: 0, active: 0))
        withExtendedLifetime(events) {}
    }

    @Test func cancellingTheReadingTaskClosesTheConnection() async throws {
        let tag = SSEServer.makeTag("cancel")
        let seen = Protected(0)
        let proxy = proxy
        let reader = Task {
            let events = try await proxy.stream(
                .get,
                path: "events",
                arguments: ["count": 10_000, "delay": 0.05, "tag": tag],
                as: .serverSentEvents
            )
            for try await _ in events {
                seen.withLock { $0 += 1 }
            }
        }
        while seen.current < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        reader.cancel()
        let result = await reader.result
        #expect((result.failure as? URLError)?.code == .cancelled)
        let outcomes = try await SSEServer.waitForOutcomes(tag) { $0.disconnected == 1 }
        #expect(outcomes == SSEServer.Outcomes(disconnected: 1, completed: 0, active: 0))
    }

    @Test func cancellingACallbackStreamClosesTheConnection() async throws {
        let tag = SSEServer.makeTag("callback")
        proxy.callbackQueue = CallbackQueues.make("stream.cancel")
        let seen = Protected(0)
        let outcome: CallbackOutcome<Void> = try await callback { handler in
            let task = proxy.stream(
                .get,
                path: "events",
                arguments: ["count": 10_000, "delay": 0.05, "tag": tag],
                as: .serverSentEvents,
                elementHandler: { _ in seen.withLock { $0 += 1 } },
                completionHandler: handler
            )
            Task {
                while seen.current < 2 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                task?.cancel()
            }
            return task
        }
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.queueLabel == "stream.cancel")
        #expect(outcome.task?.state == .cancelled)
        let outcomes = try await SSEServer.waitForOutcomes(tag) { $0.disconnected == 1 }
        #expect(outcomes == SSEServer.Outcomes(disconnected: 1, completed: 0, active: 0))
        #expect(outcome.handlerCalls.current == 1)
    }

    @Test func aReconnectingStreamResumesAfterTheLastEventID() async throws {
        let tag = SSEServer.makeTag("resume")
        let ticks = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 3, "delay": 1, "retry": 20, "tag": tag],
            as: .serverSentEvents(of: Tick.self, reconnecting: EventStreamReconnection(delay: 60))
        )
        var indices: [Int] = []
        for try await tick in ticks {
            indices.append(tick.index)
            if indices.count == 7 { break }
        }
        // Three streams of three, each resumed where the last ended; the last is left after its
        // first event, while the server waits a second to send the next.
        #expect(indices == Array(1...7))
        // Three connections, the first two ended by the server. (The third is left a second
        // before its next event; a machine busy enough may let the server finish it first.)
        let outcomes = try await SSEServer.waitForOutcomes(tag) { $0.active == 0 }
        #expect(outcomes.completed + outcomes.disconnected == 3)
        #expect(outcomes.completed >= 2)
    }

    /// An ID no header field can carry is not sent back: the server sees no `Last-Event-ID`, and
    /// starts again from its first event, rather than the stream failing with a `RequestError`
    /// (async-http-client refuses control characters) or sending bytes a field must not hold.
    @Test(arguments: ["\u{1}", "4097 × x"])
    func aReconnectingStreamSendsBackNoIDAFieldCannotCarry(suffix: String) async throws {
        let suffix = suffix == "4097 × x" ? String(repeating: "x", count: 4097) : suffix
        struct Echo: Decodable, Sendable {
            var index: Int
            var lastEventID: String?
        }
        let echoes = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 2, "delay": 0, "retry": 20, "idsuffix": suffix],
            as: .serverSentEvents(of: Echo.self, reconnecting: EventStreamReconnection(delay: 60))
        )
        var received: [Echo] = []
        for try await echo in echoes {
            received.append(echo)
            if received.count == 4 { break }
        }
        #expect(received.map(\.index) == [1, 2, 1, 2])
        #expect(received.allSatisfy { $0.lastEventID == nil })
    }

    /// `stream.cancel()` while the stream waits out the server's `retry` ends it at once, and
    /// nothing is sent again; the test's time limit is far below the minute of `retry`.
    @Test(.timeLimit(.minutes(1)))
    func cancellingAStreamWhileItWaitsToReconnectSendsNothingMore() async throws {
        let tag = SSEServer.makeTag("cancel-wait")
        let ticks = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 1, "delay": 0, "retry": 120_000, "tag": tag],
            as: .serverSentEvents(of: Tick.self, reconnecting: EventStreamReconnection(delay: 120))
        )
        let reader = Task {
            var indices: [Int] = []
            for try await tick in ticks {
                indices.append(tick.index)
            }
            return indices
        }
        // The one stream ends once its event is sent; the reader then waits two minutes.
        try await SSEServer.waitForOutcomes(tag) { $0.completed == 1 }
        ticks.cancel()
        #expect((await reader.result.failure as? URLError)?.code == .cancelled)
        let outcomes = try await SSEServer.outcomes(tag)
        #expect(outcomes == SSEServer.Outcomes(disconnected: 0, completed: 1, active: 0))
    }

    /// A server whose responses end at once, with no event, is asked again at once, then after
    /// 1 second, then 2…: its fourth response comes no sooner than 3 seconds in.
    @Test(.timeLimit(.minutes(1)))
    func reconnectionsThatBringNoEventBackOff() async throws {
        let tag = SSEServer.makeTag("back-off")
        let started = ContinuousClock.now
        let events = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 0, "tag": tag],
            as: .serverSentEvents(reconnecting: EventStreamReconnection(delay: 0))
        )
        let reader = Task {
            for try await _ in events {}
        }
        let outcomes = try await SSEServer.waitForOutcomes(tag) { $0.completed + $0.disconnected >= 4 }
        let elapsed = ContinuousClock.now - started
        events.cancel()
        #expect((await reader.result.failure as? URLError)?.code == .cancelled)
        #expect(outcomes.completed + outcomes.disconnected >= 4)
        #expect(elapsed >= .milliseconds(2_900), "\(elapsed)")
    }

    /// A server that asks for `retry: 0` and ends each response after one event is asked again
    /// no sooner than half a second later: its fifth event comes no sooner than 2 seconds in.
    /// Before the floor, such a server was asked thousands of times a second.
    @Test(.timeLimit(.minutes(1)))
    func aServerAskingForNoRetryDelayWaitsHalfASecond() async throws {
        let tag = SSEServer.makeTag("retry-0")
        let started = ContinuousClock.now
        let events = try await proxy.stream(
            .get,
            path: "events",
            arguments: ["count": 1, "retry": 0, "tag": tag],
            as: .serverSentEvents(reconnecting: EventStreamReconnection(delay: 0))
        )
        var received = 0
        for try await _ in events {
            received += 1
            if received == 5 {
                break
            }
        }
        #expect(received == 5)
        #expect(ContinuousClock.now - started >= .milliseconds(1_900))
    }

    @Test func anEventOverTheLimitFails() async throws {
        let limited = proxy.withLimits { $0.maximumElementSize = 64 << 10 }
        let events = try await limited.stream(
            .get,
            path: "events",
            arguments: ["count": 2, "delay": 0, "pad": 100_000],
            as: .serverSentEvents
        )
        let (received, error) = await drain(events)
        #expect(received.isEmpty)
        #expect((error as? StreamElementError)?.limit == 64 << 10)
    }

    /// 256 events of about 1 MB each, read through the proxy, while the test watches the
    /// process's resident memory: what the stream holds stays around a few of its events.
    /// Linux only (`/proc/self/status`); `kilo-bench-sse --live` streams 1 GiB in a process of
    /// its own.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads /proc/self/status"))
    func aQuarterGigabyteOfEventsStreamsInBoundedMemory() async throws {
        let pad = 1_000_000
        let events = try await proxy.stream(
            .get,
            path: "events",
            // Paced at about 50 MB/s, so that the server's one event loop, and the machine, keep
            // answering the other tests.
            arguments: ["count": 256, "delay": 0.02, "pad": pad],
            as: .serverSentEvents
        )
        let before = try #require(FaultServer.residentMemory())
        var peak = before
        var count = 0
        var bytes = 0
        for try await event in events {
            count += 1
            bytes += event.data.utf8.count
            if count % 8 == 0, let now = FaultServer.residentMemory() {
                peak = max(peak, now)
            }
        }
        #expect(count == 256)
        #expect(bytes > 256 * pad)
        #expect(peak - before < 100 << 20, "resident memory grew by \(peak - before) bytes")
    }
}
