import Foundation
import KiloCore
import Testing

@Suite struct ServerSentEventDecoderTests {
    /// The part of an OpenAI-style chat completion chunk that the tests read.
    private struct Chunk: Decodable, Equatable {
        struct Choice: Decodable, Equatable {
            struct Delta: Decodable, Equatable { var content: String? }
            var delta: Delta
        }
        var id: String
        var choices: [Choice]

        init(_ content: String) {
            id = "c1"
            choices = [Choice(delta: .init(content: content))]
        }
    }

    private static func event(_ content: String) -> String {
        #"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\#(content)"}}]}"#
            + "\n\n"
    }

    @Test func decodesEachEventUntilTheTerminatorWhereverTheStreamSplits() {
        let stream =
            ": keep-alive\n\n" + Self.event("Hé") + Self.event("llo 🚀") + "data: [DONE]\n\n" + Self.event("after")
        for feeding in Feedings.all(stream) {
            var decoder = ServerSentEventDecoder(Chunk.self, terminator: "[DONE]")
            var values: [Chunk] = []
            var isTerminated = false
            do {
                for chunk in feeding.chunks {
                    try decoder.append(chunk) { values.append($0) }
                    if decoder.isTerminated {
                        isTerminated = true
                    }
                }
            } catch {
                Issue.record(error, "\(feeding.name)")
            }
            #expect(values == [Chunk("Hé"), Chunk("llo 🚀")], "\(feeding.name)")
            #expect(isTerminated, "\(feeding.name)")
            #expect(decoder.finish() == false, "\(feeding.name)")
        }
    }

    @Test func ignoresInputAfterTheTerminator() throws {
        var decoder = ServerSentEventDecoder(Chunk.self, terminator: "[DONE]")
        try decoder.append(Data("data: [DONE]\n\ndata: not json\n\n".utf8)) { _ in Issue.record("nothing to decode") }
        try decoder.append(Data("data: {\n\n".utf8)) { _ in Issue.record("nothing to decode") }
        #expect(decoder.isTerminated)
        #expect(decoder.terminator == "[DONE]")
    }

    @Test func withoutATerminatorTheEndOfTheStreamEnds() throws {
        var decoder = ServerSentEventDecoder(Int.self)
        var values: [Int] = []
        try decoder.append(Data("data: 1\n\ndata: 2\n\ndata: 3\n".utf8)) { values.append($0) }
        #expect(values == [1, 2])
        #expect(decoder.finish() == true)  // the third event was cut
        #expect(!decoder.isTerminated)
    }

    @Test func undecodableEventFailsByDefaultWithTheLineWhereItStarts() {
        let stream = "data: 1\n\n: a comment is not the start\nid: 9\nevent: ping\ndata: {}\n\ndata: 3\n\n"
        for feeding in Feedings.all(stream) {
            var decoder = ServerSentEventDecoder(Int.self)
            let delivery = Delivery(feeding.chunks, append: { try decoder.append($0, $1) })
            #expect(delivery.elements == [1], "\(feeding.name)")
            let error = delivery.error as? StreamElementError
            #expect(error == .undecodableEvent(line: 4, underlyingError: CancellationError()), "\(feeding.name)")
            #expect(error?.underlyingError is DecodingError, "\(feeding.name)")
            #expect(decoder.undecodableEvents == .fail)
        }
    }

    @Test func undecodableEventIsSkippedWhenAsked() throws {
        var decoder = ServerSentEventDecoder(Int.self, undecodableEvents: .skip)
        var values: [Int] = []
        try decoder.append(Data("data: 1\n\nevent: ping\ndata: {}\n\ndata: 3\n\n".utf8)) { values.append($0) }
        #expect(values == [1, 3])
    }

    @Test func keepsTheStreamState() throws {
        var decoder = ServerSentEventDecoder(Int.self, maximumEventSize: 32)
        try decoder.append(Data("retry: 100\nid: 5\ndata: 1\n\n".utf8)) { _ in }
        #expect(decoder.lastEventID == "5")
        #expect(decoder.reconnectionTime == 100)
        #expect(throws: StreamElementError.elementTooLong(limit: 32, line: 5)) {
            try decoder.append(Data("data: \(String(repeating: "9", count: 30))\n".utf8)) { _ in }
        }
    }
}
