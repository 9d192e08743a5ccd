import Foundation
import KiloCore
import Testing

@Suite struct JSONLinesParserTests {
    private struct Record: Decodable, Equatable {
        var id: Int
        var name: String
    }

    private static let records = [Record(id: 1, name: "a"), Record(id: 2, name: "bé"), Record(id: 3, name: "🚀")]

    @Test(
        arguments: [
            (
                "LF endings",
                #"{"id":1,"name":"a"}"# + "\n" + #"{"id":2,"name":"bé"}"# + "\n" + #"{"id":3,"name":"🚀"}"# + "\n"
            ),
            (
                "CR LF endings",
                #"{"id":1,"name":"a"}"# + "\r\n" + #"{"id":2,"name":"bé"}"# + "\r\n" + #"{"id":3,"name":"🚀"}"# + "\r\n"
            ),
            (
                "blank lines skipped",
                "\n" + #"{"id":1,"name":"a"}"# + "\n\n \t\n" + #"{"id":2,"name":"bé"}"# + "\r\n\r\n"
                    + #"{"id":3,"name":"🚀"}"# + "\n\n"
            ),
            (
                "no last ending",
                #"{"id":1,"name":"a"}"# + "\n" + #"{"id":2,"name":"bé"}"# + "\n" + #"{"id":3,"name":"🚀"}"#
            ),
            (
                "spaces around values",
                #" { "id" : 1, "name" : "a" } "# + "\n" + #"{"id":2,"name":"bé"}"# + "\r" + #"{"id":3,"name":"🚀"}"#
            ),
        ]
    )
    func eachLineDecodesWhereverTheStreamSplits(rule: String, stream: String) {
        for feeding in Feedings.all(stream) {
            var parser = JSONLinesParser(Record.self)
            let delivery = Delivery(
                feeding.chunks,
                append: { try parser.append($0, $1) },
                finish: { try parser.finish($0) }
            )
            #expect(delivery.error == nil, "\(rule), \(feeding.name)")
            #expect(delivery.elements == Self.records, "\(rule), \(feeding.name)")
        }
    }

    @Test func undecodableLineThrowsWithItsNumberAfterTheValuesBefore() throws {
        let stream =
            #"{"id":1,"name":"a"}"# + "\n\n" + #"{"id":2,"name":"b"}"# + "\r\n" + #"{"id":"three"}"# + "\n"
            + #"{"id":4,"name":"d"}"# + "\n"
        for feeding in Feedings.all(stream) {
            var parser = JSONLinesParser(Record.self)
            let delivery = Delivery(
                feeding.chunks,
                append: { try parser.append($0, $1) },
                finish: { try parser.finish($0) }
            )
            #expect(delivery.elements.map(\.id) == [1, 2], "\(feeding.name)")
            let error = try #require(delivery.error as? StreamElementError, "\(feeding.name)")
            #expect(error == .undecodableJSON(line: 4, underlyingError: CancellationError()))
            #expect(error.line == 4)
            #expect(error.isUndecodable)
            #expect(error.underlyingError is DecodingError)
        }
    }

    @Test func undecodableLastLineThrowsAtFinish() throws {
        var parser = JSONLinesParser(Record.self)
        try parser.append(Data((#"{"id":1,"name":"a"}"# + "\n{").utf8)) { _ in }
        let error = #expect(throws: StreamElementError.self) {
            try parser.finish { _ in }
        }
        #expect(error?.line == 2)
        #expect(error?.underlyingError is DecodingError)
    }

    @Test func invalidUTF8IsAnUndecodableLine() {
        var parser = JSONLinesParser(String.self)
        let error = #expect(throws: StreamElementError.self) {
            try parser.append(Data([0x22, 0xFF, 0x22, 0x0A])) { _ in }
        }
        #expect(error == .undecodableJSON(line: 1, underlyingError: CancellationError()))
    }

    @Test func usesTheGivenDecoder() throws {
        struct Stamp: Decodable, Equatable { var at: Date }
        var kilo = JSONLinesParser(Stamp.self)
        var stamps: [Stamp] = []
        try kilo.append(Data((#"{"at":1700000000123}"# + "\n").utf8)) { stamps.append($0) }
        #expect(stamps == [Stamp(at: Date(timeIntervalSince1970: 1_700_000_000.123))])

        let iso = JSONDecoder()
        iso.dateDecodingStrategy = .iso8601
        var parser = JSONLinesParser(Stamp.self, decoder: iso)
        try parser.append(Data((#"{"at":"2023-11-14T22:13:20Z"}"# + "\n").utf8)) { stamps.append($0) }
        #expect(stamps.last == Stamp(at: Date(timeIntervalSince1970: 1_700_000_000)))
    }

    @Test func lineLongerThanTheLimitThrows() {
        var parser = JSONLinesParser(Int.self, maximumLineLength: 4)
        var values: [Int] = []
        #expect(throws: StreamElementError.elementTooLong(limit: 4, line: 2)) {
            try parser.append(Data("1234\n12345".utf8)) { values.append($0) }
        }
        #expect(values == [1234])
        #expect(parser.maximumLineLength == 4)
    }
}
