import Foundation
import Kilo
import Testing

/// One chunk of the sample service's streamed chat answer (OpenAI's `chat.completion.chunk`).
struct ChatChunk: Decodable, Sendable {
    struct Choice: Decodable, Sendable {
        struct Delta: Decodable, Sendable {
            var role: String?
            var content: String?
        }

        var index: Int
        var delta: Delta
        var finishReason: String?

        enum CodingKeys: String, CodingKey {
            case index, delta
            case finishReason = "finish_reason"
        }
    }

    var object: String
    var choices: [Choice]
}

/// The body of `POST /chat`.
struct ChatRequest: Encodable, Sendable {
    var prompt: String
    var tokens: Int
    var delay: Double = 0
}

/// The sample service's JSON error, `{"error": {"message", "type", "code"}}`.
struct ChatProblem: Decodable, Sendable {
    struct Detail: Decodable, Sendable {
        var message: String
        var type: String
        var code: Int
    }

    var error: Detail
}

/// Reads a stream to its end: the elements it delivered, and the error that ended it.
func drain<Element>(_ stream: ResponseStream<Element>) async -> (elements: [Element], error: Error?) {
    var elements: [Element] = []
    do {
        for try await element in stream {
            elements.append(element)
        }
        return (elements, nil)
    } catch {
        return (elements, error)
    }
}

/// Streamed responses from the sample service: a chat answer as server-sent events, records as
/// JSON Lines, bytes; and how each kind of bad input ends a stream.
@Suite(.enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"))
struct SampleStreamingTests {
    private let proxy: WebServiceProxy

    init() throws {
        proxy = try Servers.sampleProxy()
    }

    // MARK: Chat

    @Test func aChatAnswerStreamsDecodedChunksUntilDone() async throws {
        let answer = try await proxy.stream(
            .post,
            path: "chat",
            body: ChatRequest(prompt: "hello streaming world", tokens: 5),
            as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
        )
        #expect(answer.headers["Content-Type"]?.hasPrefix("text/event-stream") == true)
        let (chunks, error) = await drain(answer)
        #expect(error == nil)
        #expect(chunks.count == 7)  // the role, 5 tokens, the finish
        #expect(chunks.first?.choices.first?.delta.role == "assistant")
        #expect(chunks.last?.choices.first?.finishReason == "stop")
        #expect(chunks.allSatisfy { $0.object == "chat.completion.chunk" })
        let text = chunks.compactMap { $0.choices.first?.delta.content }.joined()
        #expect(text == "Echo: hello streaming world Echo:")
    }

    @Test func aChatAnswerStreamsThroughCallbacks() async throws {
        let queue = CallbackQueues.make("stream.chat")
        proxy.callbackQueue = queue
        let tokens = Protected<[String]>([])
        let outcome: CallbackOutcome<Void> = try await callback { handler in
            try proxy.stream(
                .post,
                path: "chat",
                body: ChatRequest(prompt: "one two", tokens: 3),
                as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]"),
                elementHandler: { chunk in
                    dispatchPrecondition(condition: .onQueue(queue))
                    tokens.withLock { $0.append(chunk.choices.first?.delta.content ?? "") }
                },
                completionHandler: handler
            )
        }
        try outcome.get()
        #expect(outcome.queueLabel == "stream.chat")
        #expect(tokens.current.joined() == "Echo: one two")
    }

    @Test func anErrorStatusBeforeTheStreamThrowsItsJSONError() async throws {
        let error = await #expect(throws: WebServiceError.self) {
            _ = try await proxy.stream(
                .post,
                path: "chat",
                arguments: ["fail": 429],
                body: ChatRequest(prompt: "hi", tokens: 3),
                as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
            )
        }
        #expect(error?.statusCode == 429)
        #expect(error?.headers["retry-after"] == "1")
        let problem = try #require(try error?.decodeBody(ChatProblem.self))
        #expect(problem.error.code == 429)
        #expect(problem.error.type == "sample_error")
    }

    /// A chat answer asked for without `"stream": true` comes whole, as JSON with a 200: the
    /// stream call throws with it rather than read it as events, of which it has none.
    @Test func aWholeJSONAnswerThrowsFromTheCallWithIt() async throws {
        struct Completion: Decodable {
            struct Choice: Decodable { var message: Message }
            struct Message: Decodable { var content: String }
            var object: String
            var choices: [Choice]
        }
        let error = await #expect(throws: UnexpectedContentTypeError.self) {
            _ = try await proxy.stream(
                .post,
                path: "chat",
                arguments: ["stream": "false"],
                body: ChatRequest(prompt: "hi", tokens: 2),
                as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
            )
        }
        #expect(error?.statusCode == 200)
        #expect(error?.contentType == "application/json")
        let completion = try JSONDecoder().decode(Completion.self, from: try #require(error?.body))
        #expect(completion.object == "chat.completion")
        #expect(completion.choices.first?.message.content == "Echo: hi")
    }

    /// The server pauses before it drops the connection: async-http-client drops with the error
    /// what it has received but not yet been asked for, which on a busy machine may be the
    /// events before the drop (Docs/Streaming.md).
    @Test func aConnectionDroppedMidEventThrowsAfterTheEventsBeforeIt() async throws {
        let answer = try await proxy.stream(
            .post,
            path: "chat",
            arguments: ["drop_after": 3, "drop_pause": 1],
            body: ChatRequest(prompt: "a b c d e", tokens: 6),
            as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
        )
        let (chunks, error) = await drain(answer)
        #expect(chunks.count == 3)
        let lost = try #require(error as? URLError)
        #expect(lost.code != .cancelled)
    }

    // MARK: JSON Lines

    @Test func recordsStreamAsJSONLines() async throws {
        let records = try await proxy.stream(
            .get,
            path: "records",
            arguments: ["count": 25],
            as: .jsonLines(of: Item.self)
        )
        let (items, error) = await drain(records)
        #expect(error == nil)
        #expect(items.map(\.id) == Array(1...25))
        #expect(items.last?.name == "Record 25")
        #expect(items.first.map { Fixtures.milliseconds(of: $0.created) } == 1_700_000_000_001)
    }

    @Test func anUndecodableRecordGivesItsLineAfterTheRecordsBeforeIt() async throws {
        let records = try await proxy.stream(
            .get,
            path: "records",
            arguments: ["count": 10, "invalid_at": 4],
            as: .jsonLines(of: Item.self)
        )
        let (items, error) = await drain(records)
        #expect(items.map(\.id) == [1, 2, 3])
        let failure = try #require(error as? StreamElementError)
        #expect(failure.isUndecodable)
        #expect(failure.line == 4)
    }

    /// The server pauses before it drops the connection, as above.
    @Test func aConnectionDroppedMidRecordThrowsAfterTheRecordsBeforeIt() async throws {
        let records = try await proxy.stream(
            .get,
            path: "records",
            arguments: ["count": 10, "drop_after": 5, "drop_pause": 1],
            as: .jsonLines(of: Item.self)
        )
        let (items, error) = await drain(records)
        #expect(items.map(\.id) == [1, 2, 3, 4, 5])
        let lost = try #require(error as? URLError)
        #expect(lost.code != .cancelled)
    }

    // MARK: Lines and bytes

    @Test func aLineOverTheLimitFailsAfterTheLinesBeforeIt() async throws {
        // Lines 1 to 9 are one byte shorter than line 10 (`"id": 10`, `Record 10`, …0010).
        let ninth = #"{"id": 9, "name": "Record 9", "created": 1700000000009}"#
        let limited = proxy.withLimits { $0.maximumElementSize = ninth.utf8.count }
        let lines = try await limited.stream(.get, path: "records", arguments: ["count": 12], as: .lines)
        let (received, error) = await drain(lines)
        #expect(received.count == 9)
        #expect(received.last == ninth)
        #expect(error as? StreamElementError == .elementTooLong(limit: ninth.utf8.count, line: 10))
    }

    @Test func aLineThatIsNotUTF8FailsWithItsNumber() async throws {
        // Byte i of /bytes is i % 251: line 1 is bytes 0–9, line 2 bytes 11–12 (13 is a CR), and
        // line 3 holds 0x80 on its own, which is not UTF-8.
        let lines = try await proxy.stream(.get, path: "bytes", arguments: ["n": 1000], as: .lines)
        let (received, error) = await drain(lines)
        #expect(received.count == 2)
        #expect(error as? StreamElementError == .invalidUTF8(line: 3))
    }

    @Test func bytesArriveWhole() async throws {
        let count = 3_000_000
        let chunks = try await proxy.stream(.get, path: "bytes", arguments: ["n": count], as: .bytes)
        var received = 0
        var isInOrder = true
        for try await chunk in chunks {
            for (offset, byte) in chunk.enumerated() where byte != UInt8((received + offset) % 251) {
                isInOrder = false
            }
            received += chunk.count
        }
        #expect(received == count)
        #expect(isInOrder)
    }
}

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

/// Event streams from the fault server that aim at the limits: fields that each fit
/// ``WebServiceProxy/Limits/maximumElementSize`` but not together, and an `id` too long to
/// send back that would otherwise be copied into every later event.
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct FaultEventStreamingTests {
    /// An event's data as `/events/long-id` sends it.
    struct Echo: Decodable, Sendable, Equatable {
        var index: Int
        var lastEventID: String?
    }

    private let proxy: WebServiceProxy

    init() throws {
        proxy = try FaultServer.proxy()
    }

    /// `event:`, `id:` and `data:` of 1 MiB less 7 bytes each: every line fits the default
    /// 1 MiB, but the event is one element, so it fails at its `data:` line (its `id:` is over
    /// 4 KiB, so ignored), after the event before it and before it is kept.
    @Test func anEventWhoseFieldsEachFitTheLimitButNotTogetherFails() async throws {
        let events = try await proxy.stream(.get, path: "events/wide", as: .serverSentEvents)
        let (received, error) = await drain(events)
        #expect(received == [ServerSentEvent(data: "before")])
        #expect(error as? StreamElementError == .elementTooLong(limit: 1 << 20, line: 5))
    }

    /// The same with `id:` short enough to keep: 3 × 1,000 bytes under a limit of 2,500.
    @Test func anEventsTypeIDAndDataShareOneBudget() async throws {
        let limited = proxy.withLimits { $0.maximumElementSize = 2_500 }
        let events = try await limited.stream(
            .get,
            path: "events/wide",
            arguments: ["size": 1_000],
            as: .serverSentEvents
        )
        let (received, error) = await drain(events)
        #expect(received == [ServerSentEvent(data: "before")])
        #expect(error as? StreamElementError == .elementTooLong(limit: 2_500, line: 5))
    }

    /// An `id:` of 1 MiB less 4 bytes (its line fits the limit) is ignored, as an `id` with NUL
    /// is: the later events carry the ID before it, not a copy of the megabyte each.
    @Test func anIDOver4KiBIsNotCopiedIntoLaterEvents() async throws {
        let events = try await proxy.stream(.get, path: "events/long-id", as: .serverSentEvents)
        let (received, error) = await drain(events)
        #expect(error == nil)
        #expect(received.map(\.lastEventID) == Array(repeating: "first", count: 5))
        let echoes = try received.map { try JSONDecoder().decode(Echo.self, from: Data($0.data.utf8)) }
        #expect(echoes.map(\.index) == Array(0..<5))
    }

    /// After an ignored `id:` over 4 KiB, a reconnection sends back the ID before it.
    @Test func aReconnectionAfterAnIDOver4KiBSendsBackTheOneBefore() async throws {
        let echoes = try await proxy.stream(
            .get,
            path: "events/long-id",
            arguments: ["size": 8_192, "count": 1],
            as: .serverSentEvents(of: Echo.self, reconnecting: EventStreamReconnection(delay: 60))
        )
        var received: [Echo] = []
        for try await echo in echoes {
            received.append(echo)
            if received.count == 4 { break }
        }
        #expect(received.map(\.index) == [0, 1, 2, 0])
        #expect(received.map(\.lastEventID) == [nil, nil, nil, "first"])
    }
}
