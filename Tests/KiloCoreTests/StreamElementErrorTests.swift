import Foundation
import KiloCore
import Testing

@Suite struct StreamElementErrorTests {
    @Test func equalityComparesCauseAndLineButNotTheUnderlyingError() {
        #expect(StreamElementError.invalidUTF8(line: 2) == .invalidUTF8(line: 2))
        #expect(StreamElementError.invalidUTF8(line: 2) != .invalidUTF8(line: 3))
        #expect(StreamElementError.elementTooLong(limit: 4, line: 1) != .elementTooLong(limit: 5, line: 1))
        #expect(
            StreamElementError.undecodableJSON(line: 1, underlyingError: CancellationError())
                == .undecodableJSON(line: 1, underlyingError: URLError(.badURL))
        )
        #expect(
            StreamElementError.undecodableJSON(line: 1, underlyingError: CancellationError())
                != .undecodableEvent(line: 1, underlyingError: CancellationError())
        )
        #expect(Set([StreamElementError.invalidUTF8(line: 1), .invalidUTF8(line: 1)]).count == 1)
    }

    @Test func propertiesDescribeTheCause() {
        let tooLong = StreamElementError.elementTooLong(limit: 1024, line: 7)
        #expect(tooLong.limit == 1024)
        #expect(tooLong.line == 7)
        #expect(!tooLong.isUndecodable)
        #expect(tooLong.underlyingError == nil)
        #expect(StreamElementError.invalidUTF8(line: 1).limit == nil)
        #expect(StreamElementError.undecodableEvent(line: 1, underlyingError: CancellationError()).isUndecodable)
    }

    @Test func descriptionsNameTheLineAndTheProblem() {
        #expect(
            StreamElementError.elementTooLong(limit: 8, line: 3).localizedDescription
                == "Line 3 of the stream goes past the limit of 8 bytes for one line or event."
        )
        #expect(
            StreamElementError.invalidUTF8(line: 2).description
                == "StreamElementError.invalidUTF8(line: 2): Line 2 of the stream is not valid UTF-8."
        )
        struct Broken: Error, CustomStringConvertible { var description: String { "broken" } }
        #expect(
            StreamElementError.undecodableJSON(line: 5, underlyingError: Broken()).localizedDescription
                == "Line 5 of the stream does not decode: broken"
        )
        #expect(
            StreamElementError.undecodableEvent(line: 9, underlyingError: Broken()).description
                == "StreamElementError.undecodableEvent(line: 9): The event at line 9 of the stream does not decode: broken"
        )
    }

    /// What the underlying error quotes from the server (a JSON key, say) is escaped and cut
    /// short, so that it cannot write to a terminal, break or reorder a log line, or flood it.
    @Test func theUnderlyingErrorsTextIsEscapedAndCutShort() throws {
        struct Record: Decodable { var id: Int }
        let key = "\u{1B}[2J\u{7}\u{202E}\r\n" + String(repeating: "k", count: 1 << 20)
        let json = try JSONSerialization.data(withJSONObject: [key: 1])
        let decodingError = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode([String: String].self, from: json)
        }
        let error = StreamElementError.undecodableJSON(line: 1, underlyingError: decodingError)
        for text in [error.localizedDescription, error.description] {
            #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control })
            #expect(!text.contains("\u{202E}"))
            #expect(text.count < 500)
        }
    }
}
