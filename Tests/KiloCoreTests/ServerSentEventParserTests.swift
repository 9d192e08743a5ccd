import Foundation
import KiloCore
import Testing

@Suite struct ServerSentEventParserTests {
    /// A stream, the events it dispatches and the state it leaves, fed every way ``Feedings``
    /// knows.
    private struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var stream: [UInt8]
        var events: [ServerSentEvent]
        var lastEventID = ""
        var reconnectionTime: Int?
        var testDescription: String { rule }

        init(
            _ rule: String,
            _ stream: String,
            _ events: [ServerSentEvent],
            lastEventID: String = "",
            reconnectionTime: Int? = nil
        ) {
            self.init(rule, Array(stream.utf8), events, lastEventID: lastEventID, reconnectionTime: reconnectionTime)
        }

        init(
            _ rule: String,
            _ stream: [UInt8],
            _ events: [ServerSentEvent],
            lastEventID: String = "",
            reconnectionTime: Int? = nil
        ) {
            self.rule = rule
            self.stream = stream
            self.events = events
            self.lastEventID = lastEventID
            self.reconnectionTime = reconnectionTime
        }
    }

    private static let rules: [Case] = [
        Case("a blank line dispatches", "data: hello\n\n", [ServerSentEvent(data: "hello")]),
        Case("data lines join with LF", "data: a\ndata: b\ndata: c\n\n", [ServerSentEvent(data: "a\nb\nc")]),
        Case("CR LF endings", "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", [.init(data: "a\nb"), .init(data: "c")]),
        Case("CR endings", "data: a\rdata: b\r\rdata: c\r\r", [.init(data: "a\nb"), .init(data: "c")]),
        Case("mixed endings", "data: a\r\n\rdata: b\n\r\n", [.init(data: "a"), .init(data: "b")]),
        Case("event sets the type", "event: add\ndata: 1\n\n", [ServerSentEvent(type: "add", data: "1")]),
        Case(
            "the type lasts one event",
            "event: add\ndata: 1\n\ndata: 2\n\n",
            [.init(type: "add", data: "1"), .init(data: "2")]
        ),
        Case("the last event field wins", "event: a\nevent: b\ndata: 1\n\n", [ServerSentEvent(type: "b", data: "1")]),
        Case(
            "an empty type is message",
            "event\ndata: 1\n\nevent:\ndata: 2\n\n",
            [.init(data: "1"), .init(data: "2")]
        ),
        Case(
            "id carries over to later events",
            "id: 1\ndata: a\n\ndata: b\n\n",
            [.init(data: "a", lastEventID: "1"), .init(data: "b", lastEventID: "1")],
            lastEventID: "1"
        ),
        Case(
            "an empty id resets it",
            "id: 1\ndata: a\n\nid\ndata: b\n\n",
            [.init(data: "a", lastEventID: "1"), .init(data: "b")]
        ),
        Case(
            "an id with NUL is ignored",
            "id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n",
            [.init(data: "a", lastEventID: "1"), .init(data: "b", lastEventID: "1")],
            lastEventID: "1"
        ),
        Case(
            "an id without data still sets the last event ID",
            "id: 7\n\ndata: x\n\n",
            [ServerSentEvent(data: "x", lastEventID: "7")],
            lastEventID: "7"
        ),
        Case(
            "the id's value is kept as is",
            "id:  é 9\ndata: x\n\n",
            [.init(data: "x", lastEventID: " é 9")],
            lastEventID: " é 9"
        ),
        Case("an event without data is not dispatched", "event: ping\n\n: only a comment\n\n", []),
        Case("its type does not carry over", "event: ping\n\ndata: x\n\n", [ServerSentEvent(data: "x")]),
        Case(
            "retry sets the reconnection time",
            "retry: 3000\ndata: x\n\n",
            [.init(data: "x", retry: 3000)],
            reconnectionTime: 3000
        ),
        Case(
            "retry lasts one event",
            "retry: 10\ndata: x\n\ndata: y\n\n",
            [.init(data: "x", retry: 10), .init(data: "y")],
            reconnectionTime: 10
        ),
        Case("retry without data still counts", "retry: 2500\n\n", [], reconnectionTime: 2500),
        Case(
            "retry must be digits",
            "retry: 30a\ndata: x\n\nretry: -1\n\nretry: 1.5\n\nretry\n\nretry: \n\n",
            [.init(data: "x")]
        ),
        Case("retry ignores a number too large", "retry: 99999999999999999999999\n\n", []),
        Case(
            "retry keeps the last valid value",
            "retry: 5\nretry: x\ndata: y\n\n",
            [.init(data: "y", retry: 5)],
            reconnectionTime: 5
        ),
        Case("comments are ignored", ": hello\ndata: x\n:\n: more\n\n", [ServerSentEvent(data: "x")]),
        Case("one leading BOM is stripped", "\u{FEFF}data: x\n\n", [ServerSentEvent(data: "x")]),
        Case("only one BOM is stripped", "\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n", [ServerSentEvent(data: "y")]),
        Case("a BOM later is data", "data: a\n\ndata: \u{FEFF}b\n\n", [.init(data: "a"), .init(data: "\u{FEFF}b")]),
        Case("a field without a colon has an empty value", "data\n\n", [ServerSentEvent(data: "")]),
        Case("two empty data lines are one LF", "data\ndata\n\n", [ServerSentEvent(data: "\n")]),
        Case("an empty last data line leaves an LF", "data: a\ndata:\n\n", [ServerSentEvent(data: "a\n")]),
        Case(
            "one space after the colon is removed",
            "data:  two\ndata:none\n\n",
            [ServerSentEvent(data: " two\nnone")]
        ),
        Case("a tab after the colon is kept", "data:\tx\n\n", [ServerSentEvent(data: "\tx")]),
        Case("colons after the first are data", "data: a: b:c\n\n", [ServerSentEvent(data: "a: b:c")]),
        Case("unknown fields are ignored", "foo: bar\ndata: x\nbaz\n\n", [ServerSentEvent(data: "x")]),
        Case("field names are case-sensitive", "Data: x\nDATA: y\n\n", []),
        Case("a field name with a space is unknown", "data : x\n data: y\n\n", []),
        Case("an event the stream ends inside is dropped", "data: a\n\ndata: b\n", [ServerSentEvent(data: "a")]),
        Case("a last line without an ending is dropped", "data: a\n\ndata: b", [ServerSentEvent(data: "a")]),
        Case(
            "an id the stream ends inside is not the last event ID",
            "id: 1\ndata: a\n\nid: 2\n",
            [.init(data: "a", lastEventID: "1")],
            lastEventID: "1"
        ),
        Case("many blank lines dispatch once", "data: x\n\n\n\n\r\n", [ServerSentEvent(data: "x")]),
        Case("UTF-8 data survives every split", "data: héllo 🚀\ndata: 日本\n\n", [ServerSentEvent(data: "héllo 🚀\n日本")]),
        Case(
            "bytes that are not UTF-8 become U+FFFD",
            Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8),
            [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}")]
        ),
        Case("JSON data", #"data: {"a": [1, 2]}"# + "\n\n", [ServerSentEvent(data: #"{"a": [1, 2]}"#)]),
    ]

    /// Kilo's rule for an `id` longer than a `Last-Event-ID` field carries back (4 KiB, as UTF-8):
    /// it is ignored, as the standard ignores one with NUL, and the last event ID stays as it was.
    private static let idRules: [Case] = [
        Case(
            "an id over 4 KiB is ignored",
            "id: 1\ndata: a\n\nid: \(String(repeating: "x", count: 4097))\ndata: b\n\n",
            [.init(data: "a", lastEventID: "1"), .init(data: "b", lastEventID: "1")],
            lastEventID: "1"
        ),
        Case(
            "an id of 4 KiB is kept",
            "id: \(String(repeating: "x", count: 4096))\ndata: a\n\n",
            [.init(data: "a", lastEventID: String(repeating: "x", count: 4096))],
            lastEventID: String(repeating: "x", count: 4096)
        ),
        // 4,095 bytes, but 4,097 once the byte that is not UTF-8 becomes U+FFFD (3 bytes). One
        // such byte only: Swift Testing takes a backtrace of each error thrown, and decoding
        // throws inside the standard library for each one.
        Case(
            "an id over 4 KiB once a byte that is not UTF-8 becomes U+FFFD is ignored",
            Array("id: 1\n\nid: \(String(repeating: "x", count: 4094))".utf8) + [0xFF] + Array("\ndata: a\n\n".utf8),
            [.init(data: "a", lastEventID: "1")],
            lastEventID: "1"
        ),
        Case(
            "an id of 4 KiB once a byte that is not UTF-8 becomes U+FFFD is kept",
            Array("id: \(String(repeating: "x", count: 4093))".utf8) + [0xFF] + Array("\ndata: a\n\n".utf8),
            [.init(data: "a", lastEventID: String(repeating: "x", count: 4093) + "\u{FFFD}")],
            lastEventID: String(repeating: "x", count: 4093) + "\u{FFFD}"
        ),
    ]

    /// The examples of the WHATWG HTML standard's "Server-sent events" section, "Parsing an event
    /// stream" and "Interpreting an event stream".
    private static let standardExamples: [Case] = [
        Case("standard: stock ticker", "data: YHOO\ndata: +2\ndata: 10\n\n", [ServerSentEvent(data: "YHOO\n+2\n10")]),
        Case(
            "standard: four blocks",
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
            [
                ServerSentEvent(data: "first event", lastEventID: "1"),
                ServerSentEvent(data: "second event"),
                ServerSentEvent(data: " third event"),
            ]
        ),
        Case(
            "standard: two events and a discarded block",
            "data\n\ndata\ndata\n\ndata:",
            [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")]
        ),
        Case(
            "standard: two identical events",
            "data:test\n\ndata: test\n\n",
            [.init(data: "test"), .init(data: "test")]
        ),
    ]

    @Test(arguments: rules + idRules + standardExamples)
    private func streamParsesAsTheStandardSays(_ testCase: Case) {
        for feeding in Feedings.all(testCase.stream) {
            var parser = ServerSentEventParser()
            let delivery = Delivery(feeding.chunks, append: { try parser.append($0, $1) })
            parser.finish()
            #expect(delivery.error == nil, "\(feeding.name)")
            #expect(delivery.elements == testCase.events, "\(feeding.name)")
            #expect(parser.lastEventID == testCase.lastEventID, "\(feeding.name)")
            #expect(parser.reconnectionTime == testCase.reconnectionTime, "\(feeding.name)")
        }
    }

    @Test func finishTellsWhetherAnEventWasCut() throws {
        var complete = ServerSentEventParser()
        try complete.append(Data(": hi\n\ndata: a\n\n".utf8)) { _ in }
        #expect(complete.finish() == false)

        var endsWithAComment = ServerSentEventParser()
        try endsWithAComment.append(Data("data: a\n\n: keep-alive\n".utf8)) { _ in }
        #expect(endsWithAComment.finish() == false)

        var cutInsideALine = ServerSentEventParser()
        try cutInsideALine.append(Data("data: a\n\ndata: b".utf8)) { _ in }
        #expect(cutInsideALine.finish() == true)

        var cutBeforeTheBlankLine = ServerSentEventParser()
        try cutBeforeTheBlankLine.append(Data("data: a\n".utf8)) { _ in }
        #expect(cutBeforeTheBlankLine.finish() == true)
    }

    @Test func finishReadiesTheParserForAReconnection() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.append(Data("\u{FEFF}retry: 5\nid: 4\ndata: a\n\nevent: b\ndata: cut".utf8)) { events.append($0) }
        parser.finish()
        try parser.append(Data("\u{FEFF}data: b\n\n".utf8)) { events.append($0) }
        #expect(events == [.init(data: "a", lastEventID: "4", retry: 5), .init(data: "b", lastEventID: "4")])
        #expect(parser.reconnectionTime == 5)
    }

    @Test func eventDataLongerThanTheLimitThrowsAfterTheEventsBefore() {
        // Each line fits in 16 bytes; the second event's data ("12345678\n123456789", 18 bytes) does not.
        for feeding in Feedings.all("data: 1234567\n\ndata: 12345678\ndata: 123456789\n\ndata: never\n\n") {
            var parser = ServerSentEventParser(maximumEventSize: 16)
            let delivery = Delivery(feeding.chunks, append: { try parser.append($0, $1) })
            #expect(delivery.elements == [ServerSentEvent(data: "1234567")], "\(feeding.name)")
            #expect(delivery.error as? StreamElementError == .elementTooLong(limit: 16, line: 4), "\(feeding.name)")
        }
    }

    /// The outcome of `stream` under `limit`, fed every way; records an issue unless every way
    /// gives the same.
    private static func parse(
        _ stream: String,
        limit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (events: [ServerSentEvent], error: StreamElementError?) {
        var first: (events: [ServerSentEvent], error: StreamElementError?)?
        for feeding in Feedings.all(stream) {
            var parser = ServerSentEventParser(maximumEventSize: limit)
            let delivery = Delivery(feeding.chunks, append: { try parser.append($0, $1) })
            #expect(delivery.error == nil || delivery.error is StreamElementError, sourceLocation: sourceLocation)
            let outcome = (events: delivery.elements, error: delivery.error as? StreamElementError)
            guard let first else {
                first = outcome
                continue
            }
            #expect(outcome.events == first.events, "\(feeding.name)", sourceLocation: sourceLocation)
            #expect(outcome.error == first.error, "\(feeding.name)", sourceLocation: sourceLocation)
        }
        return first ?? ([], nil)
    }

    /// One budget for the event: type (6) + last event ID (5) + data (6) is 17 bytes, past 16,
    /// though each line fits; the event is not delivered, the one before is.
    @Test func anEventsTypeIDAndDataShareOneBudget() {
        let outcome = Self.parse("data: ok\n\nevent: abcdef\nid: 12345\ndata: 123456\n\ndata: never\n\n", limit: 16)
        #expect(outcome.events == [ServerSentEvent(data: "ok")])
        #expect(outcome.error == .elementTooLong(limit: 16, line: 5))
    }

    @Test func anEventAtTheBudgetIsDelivered() {
        let outcome = Self.parse("event: abcdef\nid: 1234\ndata: 123456\n\n", limit: 16)
        #expect(outcome.events == [ServerSentEvent(type: "abcdef", data: "123456", lastEventID: "1234")])
        #expect(outcome.error == nil)
    }

    /// The field that takes the event past the budget fails, whichever it is: here `event` and
    /// `id` after 10 bytes of data.
    @Test(arguments: ["event: abcdefg", "id: abcdefg"])
    func theLineThatGoesPastTheBudgetFails(_ field: String) {
        let outcome = Self.parse("data: 1234567890\n\(field)\ndata: never\n\n", limit: 16)
        #expect(outcome.events.isEmpty)
        #expect(outcome.error == .elementTooLong(limit: 16, line: 2))
    }

    /// An ID carried over from an earlier event is part of every later one, so it counts against
    /// each one's budget.
    @Test func aCarriedOverIDCountsAgainstEachLaterEvent() {
        let outcome = Self.parse("id: 12345678\n\ndata: 12345678\n\ndata: 123456789\n\n", limit: 16)
        #expect(outcome.events == [ServerSentEvent(data: "12345678", lastEventID: "12345678")])
        #expect(outcome.error == .elementTooLong(limit: 16, line: 5))
    }

    /// Only what the event keeps counts: a type replaced by a later `event` field, and an `id`
    /// that is ignored (over 4 KiB, or with NUL), do not.
    @Test func onlyWhatTheEventKeepsCounts() {
        let replacedType = Self.parse("event: abcdefgh\nevent: a\ndata: 1234567890\n\n", limit: 16)
        #expect(replacedType.events == [ServerSentEvent(type: "a", data: "1234567890")])
        #expect(replacedType.error == nil)

        let longID = String(repeating: "x", count: 4097)
        let data = String(repeating: "d", count: 150)
        let ignoredID = Self.parse("id: \(longID)\ndata: \(data)\n\nid: a\u{0}b\ndata: \(data)\n\n", limit: 4200)
        #expect(ignoredID.events == [ServerSentEvent(data: data), ServerSentEvent(data: data)])
        #expect(ignoredID.error == nil)
    }

    @Test func dataAtTheLimitIsDelivered() throws {
        var parser = ServerSentEventParser(maximumEventSize: 12)
        var events: [ServerSentEvent] = []
        try parser.append(Data("data: 123456\ndata: 12345\n\n".utf8)) { events.append($0) }
        #expect(events == [ServerSentEvent(data: "123456\n12345")])
    }

    @Test func lineLongerThanTheLimitThrowsBeforeItEnds() throws {
        var parser = ServerSentEventParser(maximumEventSize: 16)
        try parser.append(Data(": sixteen bytes!".utf8)) { _ in }
        #expect(throws: StreamElementError.elementTooLong(limit: 16, line: 1)) {
            try parser.append(Data("?".utf8)) { _ in }
        }
    }

    @Test func defaultLimitIsOneMebibyte() {
        #expect(ServerSentEventParser().maximumEventSize == 1_048_576)
    }
}
