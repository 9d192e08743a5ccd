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
