import Foundation
import Kilo
import Testing

/// The `async` `stream` methods, through a ``FakeTransport`` that scripts each body chunk by chunk.
@Suite struct WebServiceProxyStreamingTests {
    struct Chunk: Codable, Equatable {
        var token: String
    }

    struct Record: Codable, Equatable {
        var id: Int
    }

    /// The header fields of a server-sent event stream, which a stream of events requires.
    static let eventStream: HTTPHeaders = ["Content-Type": "text/event-stream"]

    /// Reads a stream to its end, returning what it delivered and the error that ended it.
    static func drain<Element>(_ stream: ResponseStream<Element>) async -> (elements: [Element], error: (any Error)?) {
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

    /// Docs/Testing.md's example, as it is written there.
    @Test func theTestingGuidesExampleHolds() async throws {
        struct ChatChunk: Decodable, Sendable {
            struct Choice: Decodable, Sendable { var delta: Delta }
            struct Delta: Decodable, Sendable { var content: String? }
            var choices: [Choice]
        }
        struct ChatRequest: Encodable { var prompt: String }
        let transport = FakeTransport(
            headers: ["Content-Type": "text/event-stream"],
            streaming: [
                .text(#"data: {"choices":[{"delta":{"content":"Hel"}}]}"# + "\n\n"),
                .pause(0.05),
                .text(#"data: {"choices":[{"delta":{"content":"lo"}}]}"# + "\n\ndata: [DO"),
                .text("NE]\n\n"),
            ]
        )
        let proxy = WebServiceProxy(baseURL: URL(string: "https://api.example.com/")!, transport: transport)

        let answer = try await proxy.stream(
            .post,
            path: "chat",
            body: ChatRequest(prompt: "Hi"),
            as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
        )
        var text = ""
        for try await chunk in answer {
            text += chunk.choices.first?.delta.content ?? ""
        }

        #expect(text == "Hello")
    }

    // MARK: Formats

    @Test func bytesArriveInTheTransportsChunks() async throws {
        let proxy = makeProxy(FakeTransport(streaming: [.text("ab"), .pause(0.01), .text("cd")]))
        let chunks = try await proxy.stream(.get, path: "raw", as: .bytes)
        let (elements, error) = await Self.drain(chunks)
        #expect(error == nil)
        #expect(elements == [Data("ab".utf8), Data("cd".utf8)])
    }

    @Test func linesAreSplitAcrossChunks() async throws {
        let proxy = makeProxy(FakeTransport(streaming: [.text("one\r"), .text("\ntw"), .text("o\n\nthree")]))
        let (lines, error) = await Self.drain(try await proxy.stream(.get, path: "log", as: .lines))
        #expect(error == nil)
        #expect(lines == ["one", "two", "", "three"])
    }

    @Test func serverSentEventsArriveWithTheirFields() async throws {
        let proxy = makeProxy(
            FakeTransport(headers: Self.eventStream, streaming: [
                .text("event: tick\nid: 7\ndata: a\n"), .text("data: b\n\n: comment\n\ndata: c\n\n"),
            ])
        )
        let (events, error) = await Self.drain(try await proxy.stream(.get, path: "events", as: .serverSentEvents))
        #expect(error == nil)
        #expect(
            events == [
                ServerSentEvent(type: "tick", data: "a\nb", lastEventID: "7"),
                ServerSentEvent(data: "c", lastEventID: "7"),
            ]
        )
    }

    @Test func decodedEventsEndAtTheTerminatorAndTheRestIsNotRead() async throws {
        let cancelled = Flag()
        let transport = FakeTransport.streaming { _ in
            let (body, writer) = ResponseBody.makeWritable()
            writer.onCancel { cancelled.set() }
            Task {
                await writer.write(Data((#"data: {"token":"Hel"}"# + "\n\n").utf8))
                await writer.write(Data((#"data: {"token":"lo"}"# + "\n\ndata: [DONE]\n\ndata: ignored\n\n").utf8))
                // The server keeps the connection open: only cancelling it ends the body.
            }
            return StreamedResponse(statusCode: 200, headers: ["Content-Type": "text/event-stream"], body: body)
        }
        let proxy = makeProxy(transport)
        let answer = try await proxy.stream(
            .post,
            path: "chat",
            body: ["prompt": "Hi"],
            as: .serverSentEvents(of: Chunk.self, terminator: "[DONE]")
        )
        let (chunks, error) = await Self.drain(answer)
        #expect(error == nil)
        #expect(chunks.map(\.token) == ["Hel", "lo"])
        #expect(cancelled.value)
    }

    @Test func anUndecodableEventFailsWithItsLineAfterTheEventsBeforeIt() async throws {
        let proxy = makeProxy(
            FakeTransport(headers: Self.eventStream, streaming: [
                .text(#"data: {"token":"a"}"# + "\n\n: ping\ndata: {oops}\n\n" + #"data: {"token":"b"}"# + "\n\n")
            ])
        )
        let (chunks, error) = await Self.drain(
            try await proxy.stream(.get, path: "chat", as: .serverSentEvents(of: Chunk.self))
        )
        #expect(chunks == [Chunk(token: "a")])
        let failure = try #require(error as? StreamElementError)
        #expect(failure.isUndecodable)
        #expect(failure.line == 4)
        #expect(failure.underlyingError is DecodingError)
    }

    @Test func theSkipPolicyGoesPastUndecodableEvents() async throws {
        let proxy = makeProxy(
            FakeTransport(headers: Self.eventStream, streaming: [
                .text(#"data: {"token":"a"}"# + "\n\ndata: {oops}\n\n" + #"data: {"token":"b"}"# + "\n\n")
            ])
        )
        let stream = try await proxy.stream(
            .get,
            path: "chat",
            as: .serverSentEvents(of: Chunk.self, undecodableEvents: .skip)
        )
        let (chunks, error) = await Self.drain(stream)
        #expect(error == nil)
        #expect(chunks.map(\.token) == ["a", "b"])
    }

    @Test func jsonLinesDecodeAndAnUndecodableLineGivesItsNumber() async throws {
        let proxy = makeProxy(
            FakeTransport(streaming: [
                .text(#"{"id":1}"# + "\n\n" + #"{"id":2}"# + "\n{\"id\":"), .text("\"x\"}\n{\"id\":4}\n"),
            ])
        )
        let (records, error) = await Self.drain(
            try await proxy.stream(.get, path: "records", as: .jsonLines(of: Record.self))
        )
        #expect(records == [Record(id: 1), Record(id: 2)])
        let failure = try #require(error as? StreamElementError)
        #expect(failure == .undecodableJSON(line: 4, underlyingError: CocoaError(.coderReadCorrupt)))
    }

    @Test func jsonIsDecodedWithTheProxysDecoder() async throws {
        let proxy = makeProxy(
            FakeTransport(streaming: [.text(#"{"name":"Ann","born":"1970-01-01T00:00:00Z"}"# + "\n")])
        )
        proxy.makeJSONDecoder = {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }
        let (people, error) = await Self.drain(
            try await proxy.stream(.get, path: "people", as: .jsonLines(of: Person.self))
        )
        #expect(error == nil)
        #expect(people == [Person(name: "Ann", born: Date(timeIntervalSince1970: 0))])
    }

    @Test func aLineThatIsNotUTF8FailsWithItsNumber() async throws {
        let proxy = makeProxy(
            FakeTransport(streaming: [.text("fine\n"), .data(Data([0x61, 0xFF, 0x0A])), .text("after\n")])
        )
        let (lines, error) = await Self.drain(try await proxy.stream(.get, path: "log", as: .lines))
        #expect(lines == ["fine"])
        #expect(error as? StreamElementError == .invalidUTF8(line: 2))
    }

    // MARK: Limits

    @Test(arguments: ["lines", "events", "json"])
    func anElementOverTheLimitFailsInsteadOfGrowing(format: String) async throws {
        let long = String(repeating: "x", count: 40)
        let steps: [FakeTransport.BodyStep]
        switch format {
        case "lines": steps = [.text("ok\n"), .text(long), .text(long + "\n")]
        case "events": steps = [.text("data: ok\n\n"), .text("data: " + long), .text(long + "\n\n")]
        default: steps = [.text("\"ok\"\n"), .text("\"" + long), .text(long + "\"\n")]
        }
        let proxy = makeProxy(FakeTransport(headers: Self.eventStream, streaming: steps))
        proxy.limits.maximumElementSize = 64
        let outcome: (count: Int, error: (any Error)?)
        switch format {
        case "lines":
            let drained = await Self.drain(try await proxy.stream(.get, path: "x", as: .lines))
            outcome = (drained.elements.count, drained.error)
        case "events":
            let drained = await Self.drain(try await proxy.stream(.get, path: "x", as: .serverSentEvents))
            outcome = (drained.elements.count, drained.error)
        default:
            let drained = await Self.drain(try await proxy.stream(.get, path: "x", as: .jsonLines(of: String.self)))
            outcome = (drained.elements.count, drained.error)
        }
        #expect(outcome.count == 1)
        #expect(outcome.error as? StreamElementError == .elementTooLong(limit: 64, line: format == "events" ? 3 : 2))
    }

    @Test func theDeadlineBoundsTheStream() async throws {
        // Long enough for the head and the first line to come on a busy machine.
        let proxy = makeProxy(FakeTransport(streaming: [.text("first\n"), .pause(120), .text("never\n")]))
        proxy.limits.deadline = 10
        let (lines, error) = await Self.drain(try await proxy.stream(.get, path: "slow", as: .lines))
        #expect(lines == ["first"])
        #expect(error as? LimitError == .deadlineExceeded(after: 10))
    }

    @Test func theDeadlineBoundsTheHead() async throws {
        let transport = FakeTransport.streaming { _ in
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return StreamedResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        proxy.limits.deadline = 0.3
        await #expect(throws: LimitError.deadlineExceeded(after: 0.3)) {
            _ = try await proxy.stream(.get, path: "slow", as: .lines)
        }
    }

    @Test func maximumBodySizeDoesNotLimitAStream() async throws {
        let chunk = String(repeating: "y", count: 1000) + "\n"
        let proxy = makeProxy(FakeTransport(streaming: Array(repeating: .text(chunk), count: 20)))
        proxy.limits.maximumBodySize = 5000
        let (lines, error) = await Self.drain(try await proxy.stream(.get, path: "many", as: .lines))
        #expect(error == nil)
        #expect(lines.count == 20)
    }

    // MARK: Status

    @Test func anErrorStatusThrowsFromTheCallWithItsJSONBody() async throws {
        struct Problem: Decodable {
            struct Detail: Decodable { var message: String }
            var error: Detail
        }
        let proxy = makeProxy(
            FakeTransport(statusCode: 429, body: #"{"error":{"message":"slow down"}}"#, headers: ["Retry-After": "1"])
        )
        let error = await #expect(throws: WebServiceError.self) {
            _ = try await proxy.stream(.post, path: "chat", body: ["prompt": "Hi"], as: .serverSentEvents)
        }
        #expect(error?.statusCode == 429)
        #expect(error?.headers["retry-after"] == "1")
        #expect(try error?.decodeBody(Problem.self).error.message == "slow down")
    }

    @Test func anErrorBodyIsCappedAtTheErrorBodyLimit() async throws {
        let body = Data(repeating: 0x20, count: WebServiceProxy.errorBodyLimit + 500_000)
        let proxy = makeProxy(FakeTransport(statusCode: 500, streaming: [.data(body)]))
        let error = await #expect(throws: WebServiceError.self) {
            _ = try await proxy.stream(.get, path: "x", as: .lines)
        }
        #expect(error?.body.count == WebServiceProxy.errorBodyLimit)
    }

    /// A 200 to a request for events that is not `text/event-stream` (JSON, as an API gives when
    /// it was not asked to stream, or no type at all) fails from the call, as `EventSource`
    /// fails it, with the start of its body; a `charset` or another case is no other type.
    @Test func aResponseThatIsNotAnEventStreamThrowsFromTheCall() async throws {
        let json = #"{"error":"streaming is off"}"#
        for contentType in ["application/json", "text/plain", "text/event-stream-x", nil] as [String?] {
            let headers: HTTPHeaders = contentType.map { ["Content-Type": $0] } ?? [:]
            let proxy = makeProxy(FakeTransport(headers: headers, streaming: [.text(json)]))
            let error = await #expect(throws: UnexpectedContentTypeError.self, "\(contentType ?? "none")") {
                _ = try await proxy.stream(.get, path: "chat", as: .serverSentEvents(of: Chunk.self))
            }
            #expect(error?.statusCode == 200)
            #expect(error?.contentType == contentType)
            #expect(error?.body == Data(json.utf8))
            #expect(error?.expected == "text/event-stream")
        }
        for contentType in ["text/event-stream; charset=utf-8", "Text/Event-Stream"] {
            let transport = FakeTransport(headers: ["Content-Type": contentType], streaming: [.text("data: a\n\n")])
            let stream = try await makeProxy(transport).stream(.get, path: "x", as: .serverSentEvents)
            let (events, error) = await Self.drain(stream)
            #expect(events.map(\.data) == ["a"], "\(contentType)")
            #expect(error == nil)
        }
    }

    /// The error keeps only what the body's first read brings, whatever its length: the call
    /// does not wait for a stream, or a slow server, under another type, and cancels the rest;
    /// a connection lost before any byte still gives the error, empty.
    @Test func aResponseOfAnotherTypeIsReadOnlyAsFarAsItsFirstRead() async throws {
        let document = FakeTransport(
            headers: ["Content-Type": "application/json", "Content-Length": "9"],
            streaming: [.text("{\"a\":"), .pause(60), .text("1}\n")]
        )
        let slow = await #expect(throws: UnexpectedContentTypeError.self) {
            _ = try await makeProxy(document).stream(.get, path: "x", as: .serverSentEvents)
        }
        #expect(slow?.body == Data("{\"a\":".utf8))
        let cancelled = Flag()
        let endless = await #expect(throws: UnexpectedContentTypeError.self) {
            _ = try await makeProxy(Self.endlessTransport(cancelled: cancelled)).stream(
                .get,
                path: "x",
                as: .serverSentEvents
            )
        }
        #expect(endless?.body == Data("line 0\n".utf8))
        #expect(cancelled.value)
        let lost = FakeTransport(
            headers: ["Content-Type": "text/html", "Content-Length": "5000"],
            streaming: [.failure(URLError(.networkConnectionLost))]
        )
        let empty = await #expect(throws: UnexpectedContentTypeError.self) {
            _ = try await makeProxy(lost).stream(.get, path: "x", as: .serverSentEvents)
        }
        #expect(empty?.body.isEmpty == true)
    }

    /// Only an event stream requires its type: lines, bytes and JSON Lines take any.
    @Test func otherFormatsTakeAnyType() async throws {
        let transport = FakeTransport(headers: ["Content-Type": "text/html"], streaming: [.text("{\"id\":1}\n")])
        let (records, error) = await Self.drain(
            try await makeProxy(transport).stream(.get, path: "x", as: .jsonLines(of: Record.self))
        )
        #expect(records == [Record(id: 1)])
        #expect(error == nil)
    }

    @Test func aNoContentResponseIsAnEmptyStream() async throws {
        let proxy = makeProxy(FakeTransport(statusCode: 204, data: Data()))
        let stream = try await proxy.stream(.get, path: "x", as: .serverSentEvents)
        #expect(stream.statusCode == 204)
        let (events, error) = await Self.drain(stream)
        #expect(events.isEmpty)
        #expect(error == nil)
    }

    // MARK: Requests

    @Test func theRequestIsBuiltAsInvokeBuildsIt() async throws {
        let transport = FakeTransport(headers: Self.eventStream, streaming: [])
        let proxy = makeProxy(transport)
        proxy.headers = ["Authorization": "Bearer t"]
        _ = await Self.drain(
            try await proxy.stream(
                .post,
                path: "chat",
                arguments: ["model": "m"],
                body: ["prompt": "Hi"],
                as: .serverSentEvents
            )
        )
        _ = await Self.drain(
            try await proxy.stream(.get, path: "records", arguments: ["count": 2], as: .jsonLines(of: Record.self))
        )
        _ = await Self.drain(try await proxy.stream(.post, path: "form", arguments: ["a": "b c"], as: .lines))
        let requests = await transport.requests
        try #require(requests.count == 3)
        #expect(requests[0].method == .post)
        #expect(requests[0].url.absoluteString == "https://api.example.com/v1/chat?model=m")
        #expect(requests[0].headers["Content-Type"] == "application/json")
        #expect(requests[0].headers["Accept"] == "text/event-stream")
        #expect(requests[0].headers["Authorization"] == "Bearer t")
        #expect(text(requests[0]) == #"{"prompt":"Hi"}"#)
        #expect(requests[1].url.absoluteString == "https://api.example.com/v1/records?count=2")
        #expect(requests[1].headers["Accept"] == "application/x-ndjson")
        #expect(requests[2].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(text(requests[2]) == "a=b%20c")
        #expect(requests[2].headers["Accept"] == nil)
    }

    @Test func badInputThrowsAndSendsNothing() async throws {
        let transport = FakeTransport(streaming: [])
        let proxy = makeProxy(transport)
        await #expect(throws: RequestError.self) {
            _ = try await proxy.stream(.get, path: "//elsewhere.example/x", as: .lines)
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func aRetryHappensOnlyBeforeTheFirstElement() async throws {
        let attempts = Counter()
        let transport = FakeTransport.streaming { _ in
            attempts.increment()
            if attempts.value == 1 {
                return StreamedResponse(statusCode: 503, body: ResponseBody(Data("busy".utf8)))
            }
            return StreamedResponse(
                statusCode: 200,
                body: FakeTransport.body([.text("a\n"), .failure(URLError(.networkConnectionLost))])
            )
        }
        let policy = RetryPolicy(initialDelay: 0.01, retriedErrorCodes: [.networkConnectionLost])
        let proxy = makeProxy(transport.retrying(policy))
        let (lines, error) = await Self.drain(try await proxy.stream(.get, path: "feed", as: .lines))
        #expect(lines == ["a"])
        #expect((error as? URLError)?.code == .networkConnectionLost)
        #expect(attempts.value == 2)  // the 503 was retried; the lost connection after "a" was not
    }

    @Test func aLargeMultipartBodyIsSentFromATemporaryFile() async throws {
        let directory = try TemporaryDirectory()
        let size = Int(WebServiceProxy.multipartMemoryLimit) + 1
        let file = try directory.write(Data(repeating: 7, count: size), named: "big.bin")
        let transport = FakeTransport(streaming: [.text("done\n")])
        let proxy = makeProxy(transport)
        proxy.encoding = .multipartFormData
        let (lines, error) = await Self.drain(
            try await proxy.stream(.post, path: "upload", arguments: ["file": file], as: .lines)
        )
        #expect(error == nil)
        #expect(lines == ["done"])
        let sent = try #require(await transport.requests.first?.bodyData())
        #expect(sent.count > size)
    }

    // MARK: Cancellation

    /// A body that records whether its reader cancelled it, and otherwise never ends.
    static func endlessTransport(cancelled: Flag) -> FakeTransport {
        FakeTransport.streaming { _ in
            let (body, writer) = ResponseBody.makeWritable()
            writer.onCancel { cancelled.set() }
            Task {
                var index = 0
                while await writer.write(Data("line \(index)\n".utf8)) {
                    index += 1
                    try? await Task.sleep(nanoseconds: 1_000_000)
                }
            }
            return StreamedResponse(statusCode: 200, body: body)
        }
    }

    @Test func leavingTheLoopCancelsTheRequestWhileTheStreamIsHeld() async throws {
        let cancelled = Flag()
        let proxy = makeProxy(Self.endlessTransport(cancelled: cancelled))
        let lines = try await proxy.stream(.get, path: "endless", as: .lines)
        var seen = 0
        for try await _ in lines {
            seen += 1
            if seen == 3 { break }
        }
        #expect(cancelled.value)
        withExtendedLifetime(lines) {}
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let cancelled = Flag()
        let proxy = makeProxy(Self.endlessTransport(cancelled: cancelled))
        let started = Flag()
        let reader = Task {
            let lines = try await proxy.stream(.get, path: "endless", as: .lines)
            for try await _ in lines {
                started.set()
            }
        }
        while !started.value {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        reader.cancel()
        let result = await reader.result
        #expect((result.failure as? URLError)?.code == .cancelled)
        #expect(cancelled.value)
    }

    @Test func cancelStopsTheStream() async throws {
        let cancelled = Flag()
        let proxy = makeProxy(Self.endlessTransport(cancelled: cancelled))
        let lines = try await proxy.stream(.get, path: "endless", as: .lines)
        var iterator = lines.makeAsyncIterator()
        #expect(try await iterator.next() == "line 0")
        lines.cancel()
        await #expect(throws: URLError(.cancelled)) {
            while try await iterator.next() != nil {}
        }
        #expect(cancelled.value)
    }

    /// After `cancel()`, or once the reading task is cancelled, the elements already parsed
    /// from the last chunk are not handed out: the next `next()` throws.
    @Test(arguments: [false, true])
    func aCancelledStreamHandsOutNothingItHasParsed(cancelsTheTask: Bool) async throws {
        let proxy = makeProxy(FakeTransport(streaming: [.text("one\ntwo\nthree\n"), .pause(60)]))
        let lines = try await proxy.stream(.get, path: "lines", as: .lines)
        let reader = Task {
            var iterator = lines.makeAsyncIterator()
            let first = try await iterator.next()
            if cancelsTheTask {
                withUnsafeCurrentTask { $0?.cancel() }
            } else {
                lines.cancel()
            }
            do {
                return (first, Result<String?, any Error>.success(try await iterator.next()))
            } catch {
                return (first, .failure(error))
            }
        }
        let (first, second) = try await reader.value
        #expect(first == "one")
        #expect((second.failure as? URLError)?.code == .cancelled)
    }

    @Test func aConnectionLostMidEventDeliversTheEventsBeforeIt() async throws {
        let proxy = makeProxy(
            FakeTransport(
                headers: Self.eventStream,
                streaming: [.text("data: one\n\ndata: tw"), .failure(URLError(.networkConnectionLost))]
            )
        )
        let (events, error) = await Self.drain(try await proxy.stream(.get, path: "events", as: .serverSentEvents))
        #expect(events.map(\.data) == ["one"])
        #expect((error as? URLError)?.code == .networkConnectionLost)
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
