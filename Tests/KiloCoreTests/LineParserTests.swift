import Foundation
import KiloCore
import Testing

@Suite struct LineParserTests {
    /// A stream and the lines it holds, fed every way ``Feedings`` knows.
    private struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var stream: String
        var lines: [String]
        var testDescription: String { rule }
    }

    private static let cases: [Case] = [
        Case(rule: "LF ends a line", stream: "one\ntwo\n", lines: ["one", "two"]),
        Case(rule: "CR LF ends a line", stream: "one\r\ntwo\r\n", lines: ["one", "two"]),
        Case(rule: "CR alone ends a line", stream: "one\rtwo\r", lines: ["one", "two"]),
        Case(rule: "endings mix", stream: "a\nb\r\nc\rd\n", lines: ["a", "b", "c", "d"]),
        Case(rule: "blank lines are kept", stream: "a\n\n\nb\n", lines: ["a", "", "", "b"]),
        Case(rule: "CR then CR LF is a blank line", stream: "a\r\r\nb\n", lines: ["a", "", "b"]),
        Case(rule: "LF then CR is a blank line", stream: "a\n\rb\n", lines: ["a", "", "b"]),
        Case(rule: "a lone ending is one blank line", stream: "\r\n", lines: [""]),
        Case(rule: "the last line needs no ending", stream: "a\nlast", lines: ["a", "last"]),
        Case(rule: "a trailing CR ends the last line", stream: "a\r", lines: ["a"]),
        Case(rule: "an empty stream has no lines", stream: "", lines: []),
        Case(
            rule: "UTF-8 characters survive every split",
            stream: "héllo\r\n🚀 ünïcode\n日本",
            lines: ["héllo", "🚀 ünïcode", "日本"]
        ),
        Case(rule: "spaces and tabs are kept", stream: "  a\t\n", lines: ["  a\t"]),
    ]

    @Test(arguments: cases)
    private func linesAreSplitAtEveryEnding(_ testCase: Case) {
        for feeding in Feedings.all(testCase.stream) {
            var parser = LineParser()
            let delivery = Delivery(
                feeding.chunks,
                append: { try parser.append($0, $1) },
                finish: { try parser.finish($0) }
            )
            #expect(delivery.error == nil, "\(feeding.name)")
            #expect(delivery.elements == testCase.lines, "\(feeding.name)")
            #expect(parser.lineCount == testCase.lines.count, "\(feeding.name)")
        }
    }

    @Test func lineCountCountsDeliveredLines() throws {
        var parser = LineParser()
        try parser.append(Data("a\r\nb\rc".utf8)) { _ in }
        #expect(parser.lineCount == 2)
        try parser.append(Data("\n".utf8)) { _ in }
        #expect(parser.lineCount == 3)
    }

    @Test func invalidUTF8ThrowsWithTheLineNumberAfterTheLinesBefore() {
        let stream: [UInt8] = Array("ok\r\nfine\n".utf8) + [0x62, 0xFF, 0x0A] + Array("never\n".utf8)
        for feeding in Feedings.all(stream) {
            var parser = LineParser()
            let delivery = Delivery(
                feeding.chunks,
                append: { try parser.append($0, $1) },
                finish: { try parser.finish($0) }
            )
            #expect(delivery.elements == ["ok", "fine"], "\(feeding.name)")
            #expect(delivery.error as? StreamElementError == .invalidUTF8(line: 3), "\(feeding.name)")
        }
    }

    @Test func truncatedUTF8AtTheEndThrowsAtFinish() throws {
        var parser = LineParser()
        try parser.append(Data([0x61, 0x0A, 0xE2, 0x82])) { _ in }  // "a", then two of the three bytes of "€"
        #expect(throws: StreamElementError.invalidUTF8(line: 2)) {
            try parser.finish { _ in }
        }
    }

    @Test func lineLongerThanTheLimitThrowsAfterTheLinesBefore() {
        for feeding in Feedings.all("abcd\r\nabcde\nnever\n") {
            var parser = LineParser(maximumLineLength: 4)
            let delivery = Delivery(
                feeding.chunks,
                append: { try parser.append($0, $1) },
                finish: { try parser.finish($0) }
            )
            #expect(delivery.elements == ["abcd"], "\(feeding.name)")
            #expect(delivery.error as? StreamElementError == .elementTooLong(limit: 4, line: 2), "\(feeding.name)")
        }
    }

    @Test func lineWithoutAnEndingThrowsAsSoonAsItPassesTheLimit() throws {
        var parser = LineParser(maximumLineLength: 8)
        for _ in 0..<8 {
            try parser.append(Data("x".utf8)) { _ in Issue.record("no line ends") }
        }
        #expect(throws: StreamElementError.elementTooLong(limit: 8, line: 1)) {
            try parser.append(Data("x".utf8)) { _ in }
        }
    }

    @Test func defaultLimitIsOneMebibyte() throws {
        #expect(LineParser().maximumLineLength == 1_048_576)
        var parser = LineParser()
        let line = String(repeating: "a", count: 1_048_576)
        var lines: [String] = []
        try parser.append(Data((line + "\n").utf8)) { lines.append($0) }
        #expect(lines == [line])
        #expect(throws: StreamElementError.elementTooLong(limit: 1_048_576, line: 2)) {
            try parser.append(Data((line + "a").utf8)) { _ in }
        }
    }

    @Test func errorThrownByTheHandlerPropagates() {
        struct Stop: Error {}
        var parser = LineParser()
        #expect(throws: Stop.self) {
            try parser.append(Data("a\nb\n".utf8)) { _ in throw Stop() }
        }
    }
}
