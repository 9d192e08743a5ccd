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
}
