import Foundation
import KiloCore

/// What the WHATWG HTML standard's event stream interpretation makes of a whole body, written
/// from the standard line by line (section 9.2.6), with `ServerSentEventParser`'s documented
/// limits: a line (a first line's byte order mark counted) of more than `limit` bytes, or a line
/// that takes the event being read past `limit` bytes (its type and last event ID as UTF-8 text,
/// its data as received, values joined with LFs), ends the stream with `elementTooLong` at that
/// line; and an `id` whose value is over 4 KiB as text is ignored, as one with NUL is.
///
/// Values are decoded one by one; the standard decodes the whole stream first, which gives the
/// same text, since a UTF-8 decoder never takes the ASCII bytes CR, LF, colon or space into an
/// invalid sequence.
struct EventStreamModel: Equatable {
    var events: [ServerSentEvent] = []
    /// The line where each event starts: its first line that is not a comment.
    var eventLines: [Int] = []
    var error: StreamElementError?
    var lastEventID = ""
    var reconnectionTime: Int?
    /// What `finish()` reports: an unfinished line, or lines of an event without its blank line.
    var dropsSomething = false

    /// Nothing parsed yet.
    init() {}

    /// The outcome the standard gives for `body`, as a new stream, or as the one a reconnection
    /// opens after `previous` (its last event ID and reconnection time carry over).
    init(_ body: [UInt8], limit: Int, after previous: EventStreamModel? = nil) {
        let lines = Lines(body)
        var data: [ArraySlice<UInt8>] = []
        var type = ""
        lastEventID = previous?.lastEventID ?? ""
        reconnectionTime = previous?.reconnectionTime
        var idBuffer = lastEventID
        var retry: Int?
        var firstLine: Int?  // of the event being read
        for (offset, line) in lines.ended.enumerated() {
            let number = offset + 1
            guard line.count <= limit else {
                error = .elementTooLong(limit: limit, line: number)
                return
            }
            var line = line
            if number == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) {
                line = line.dropFirst(3)
            }
            if line.isEmpty {
                // Dispatch the event.
                lastEventID = idBuffer
                if !data.isEmpty {
                    events.append(
                        ServerSentEvent(
                            type: type.isEmpty ? "message" : type,
                            data: data.map(Self.text).joined(separator: "\n"),
                            lastEventID: lastEventID,
                            retry: retry
                        )
                    )
                    eventLines.append(firstLine ?? number)
                }
                (data, type, retry, firstLine) = ([], "", nil, nil)
                continue
            }
            if line.first == UInt8(ascii: ":") { continue }
            firstLine = firstLine ?? number
            let field: ArraySlice<UInt8>
            var value: ArraySlice<UInt8>
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                field = line[..<colon]
                value = line[(colon + 1)...]
                if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            } else {
                (field, value) = (line, [])
            }
            switch Self.text(field) {
            case "data":
                guard Self.size(type: type, id: idBuffer, data: data + [value]) <= limit else {
                    error = .elementTooLong(limit: limit, line: number)
                    return
                }
                data.append(value)
            case "event":
                let newType = Self.text(value)
                guard Self.size(type: newType, id: idBuffer, data: data) <= limit else {
                    error = .elementTooLong(limit: limit, line: number)
                    return
                }
                type = newType
            case "id":
                let id = Self.text(value)
                if !value.contains(0), id.utf8.count <= 4096 {
                    guard Self.size(type: type, id: id, data: data) <= limit else {
                        error = .elementTooLong(limit: limit, line: number)
                        return
                    }
                    idBuffer = id
                }
            case "retry":
                if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
                    let milliseconds = Int(Self.text(value))
                {
                    retry = milliseconds
                    reconnectionTime = milliseconds
                }
            default:
                break
            }
        }
        guard lines.tail.count <= limit else {
            error = .elementTooLong(limit: limit, line: lines.ended.count + 1)
            return
        }
        dropsSomething = !lines.tail.isEmpty || firstLine != nil
    }

    /// The bytes an event holds, for the parser's one budget: its type's and last event ID's as
    /// UTF-8, and its data's as received, the values joined with LFs.
    private static func size(type: String, id: String, data: [ArraySlice<UInt8>]) -> Int {
        type.utf8.count + id.utf8.count + data.reduce(0) { $0 + $1.count } + max(data.count - 1, 0)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// What `ServerSentEventParser` makes of the same body, fed in `chunks`; `again`, of the body
    /// fed a second time after `finish()`, as the stream a reconnection opens.
    static func parsed(_ chunks: [Data], limit: Int, again: Bool = false) -> EventStreamModel {
        var outcome = EventStreamModel()
        var parser = ServerSentEventParser(maximumEventSize: limit)
        if again {
            if let error = chunks.feed("ServerSentEventParser", { try parser.append($0) { _ in } }) {
                fatalError("ServerSentEventParser threw \(error) the first time, not the second")
            }
            parser.finish()
        }
        outcome.error = chunks.feed("ServerSentEventParser") { try parser.append($0) { outcome.events.append($0) } }
        guard outcome.error == nil else { return outcome }
        outcome.lastEventID = parser.lastEventID
        outcome.reconnectionTime = parser.reconnectionTime
        outcome.dropsSomething = parser.finish()
        return outcome
    }
}

extension EventStreamModel {
    /// Compares only what a caller may rely on: after an error, the events before it and the
    /// error (the parser's other state is undefined then).
    static func == (lhs: EventStreamModel, rhs: EventStreamModel) -> Bool {
        guard lhs.events == rhs.events, lhs.error == rhs.error else { return false }
        return lhs.error != nil
            || (lhs.lastEventID == rhs.lastEventID && lhs.reconnectionTime == rhs.reconnectionTime
                && lhs.dropsSomething == rhs.dropsSomething)
    }
}
