import Foundation

/// Parses a streamed `text/event-stream` response into events, chunk by chunk, as the WHATWG
/// HTML standard's "event stream" parsing says.
///
/// Feed it the body's chunks as they arrive, split anywhere; it hands over each event when the
/// blank line that ends it arrives. It follows the standard's rules: `data` lines are joined with
/// LF; `event` sets the type (`message` by default); `id` sets the last event ID, which carries
/// over to later events, unless its value contains NUL (or, Kilo's rule, is longer than the 4 KiB
/// a `Last-Event-ID` field carries back: such an `id` is ignored alike, so a server cannot have
/// a huge ID copied into every later event); `retry` sets the reconnection time if its
/// value is all digits (and fits in an `Int`); lines that start with `:` are comments; a line
/// without a colon is a field with an empty value; one space after the colon is removed; unknown
/// fields are ignored; a leading byte order mark is ignored; an event whose data is empty is not
/// delivered; bytes that are not UTF-8 become U+FFFD; an event the stream ends inside is dropped.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {            // an AsyncSequence of Data
///     try parser.append(chunk) { event in
///         print(event.type, event.data)
///     }
/// }
/// parser.finish()
/// // reconnect with parser.lastEventID in a Last-Event-ID header, after parser.reconnectionTime ms
/// ```
///
/// The parser keeps only the unfinished line and the event being read. It throws rather than
/// keep one line longer than ``maximumEventSize``, or an event whose type, last event ID and data
/// together are: one budget for the event, not one for each field. When a call throws, the
/// stream cannot be parsed further: discard the parser.
public struct ServerSentEventParser: Sendable {
    private var scanner: LineScanner
    private var assembler: Assembler

    /// Creates a parser.
    ///
    /// - Parameter maximumEventSize: The most bytes an event (its type, last event ID and data
    ///   together), or any one line (field name included), may hold; 1 MiB unless given. Must be
    ///   at least 1.
    public init(maximumEventSize: Int = 1 << 20) {
        scanner = LineScanner(maximumLineLength: maximumEventSize)
        assembler = Assembler(maximumEventSize: maximumEventSize)
    }

    /// The most bytes an event, or any one line, may hold.
    ///
    /// An event counts the UTF-8 bytes of its type and of its last event ID, whether an `id`
    /// field in the event set it or an earlier one did, and those of its data, joined with LFs,
    /// as they arrived (before bytes that are not UTF-8 become U+FFFD).
    public var maximumEventSize: Int {
        scanner.maximumLineLength
    }

    /// The stream's last event ID, as of the last blank line: what a client sends in a
    /// `Last-Event-ID` header when it reconnects. Empty until an `id` field sets it; never longer
    /// than 4 KiB.
    public var lastEventID: String {
        assembler.lastEventID
    }

    /// The reconnection time, in milliseconds, that the stream's latest `retry` field set; `nil`
    /// if none has.
    public var reconnectionTime: Int? {
        assembler.reconnectionTime
    }

    /// Parses the next chunk of the stream, and hands each event it completes to `handle`.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the stream.
    ///   - handle: Called with each complete event, in order.
    /// - Throws: ``StreamElementError/elementTooLong(limit:line:)`` for a line, or an event,
    ///   longer than ``maximumEventSize`` (at the line that makes it so), or what `handle` throws.
    ///   The events before the one at fault have been delivered.
    public mutating func append(_ chunk: Data, _ handle: (ServerSentEvent) throws -> Void) throws {
        try parse(chunk) { event, _ in try handle(event) }
    }

    /// The most UTF-8 bytes of an `id` value that sets the last event ID: 4 KiB, the most that
    /// a reconnection sends back in a `Last-Event-ID` field (header fields this long are already
    /// rare; a larger ID is a server's mistake or an attack). A longer value is ignored, as the
    /// standard ignores one that contains NUL: the last event ID stays as it was.
    package static let maximumLastEventIDSize = 4096

    /// Ends the stream: drops the event it ended inside, if any (the standard does not dispatch
    /// an event without its blank line), and makes the parser ready for another stream, such as
    /// the one a reconnection opens. ``lastEventID`` and ``reconnectionTime`` are kept.
    ///
    /// - Returns: Whether anything was dropped: an unfinished line, or lines of an event whose
    ///   blank line never came (a sign that the stream was cut).
    @discardableResult
    public mutating func finish() -> Bool {
        let droppedLine = scanner.discardTail()
        let droppedEvent = assembler.endStream()
        scanner = LineScanner(maximumLineLength: scanner.maximumLineLength)
        return droppedLine || droppedEvent
    }

    /// Parses the next chunk, and hands each event it completes to `handle` with the number of
    /// the line where the event starts.
    mutating func parse(_ chunk: Data, _ handle: (ServerSentEvent, _ line: Int) throws -> Void) throws {
        try chunk.withUnsafeBytes { bytes in
            try scanner.scan(bytes) { line, number in try assembler.process(line, number: number, handle) }
        }
    }
}

extension ServerSentEventParser {
    /// The standard's buffers and fields, fed one line at a time.
    private struct Assembler: Sendable {
        let maximumEventSize: Int
        /// The data buffer, as bytes: each `data` value followed by an LF.
        private var data: [UInt8] = []
        /// The event type buffer.
        private var type = ""
        /// The last event ID buffer, set by `id` fields.
        private var idBuffer = ""
        /// The last event ID string, set from the buffer at each blank line.
        private(set) var lastEventID = ""
        /// The `retry` value of the event being read.
        private var retry: Int?
        private(set) var reconnectionTime: Int?
        /// The number of the event's first line that is not a comment; 0 before there is one.
        private var startLine = 0
        /// Whether the next line is the stream's first, which may start with a byte order mark.
        private var isAtStart = true

        init(maximumEventSize: Int) {
            self.maximumEventSize = maximumEventSize
        }

        mutating func process(
            _ line: UnsafeRawBufferPointer,
            number: Int,
            _ handle: (ServerSentEvent, _ line: Int) throws -> Void
        ) throws {
            var line = line
            if isAtStart {
                isAtStart = false
                if line.starts(with: [0xEF, 0xBB, 0xBF]) {
                    line = UnsafeRawBufferPointer(rebasing: line[3...])
                }
            }
            guard let first = line.first else {
                try dispatch(handle)
                return
            }
            if first == ASCII.colon {
                return  // a comment
            }
            if startLine == 0 {
                startLine = number
            }
            let field: UnsafeRawBufferPointer
            let value: UnsafeRawBufferPointer
            if let base = line.baseAddress, let found = memchr(base, Int32(ASCII.colon), line.count) {
                let colon = base.distance(to: UnsafeRawPointer(found))
                field = UnsafeRawBufferPointer(rebasing: line[..<colon])
                let valueStart = colon + 1 < line.count && line[colon + 1] == ASCII.space ? colon + 2 : colon + 1
                value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
            } else {
                field = line
                value = UnsafeRawBufferPointer(start: nil, count: 0)
            }
            switch field.count {
            case 4 where Self.field(field, is: "data"):
                // `data` ends with the LF that will join this value to the previous one, so the
                // event's data becomes `data.count + value.count` bytes.
                try checkSize(type: type, id: idBuffer, data: data.count + value.count, line: number)
                data.append(contentsOf: value)
                data.append(ASCII.lineFeed)
            case 5 where Self.field(field, is: "event"):
                let newType = String(decoding: value, as: UTF8.self)
                try checkSize(type: newType, id: idBuffer, data: dataSize, line: number)
                type = newType
            case 5 where Self.field(field, is: "retry"):
                if let milliseconds = Self.digits(value) {
                    retry = milliseconds
                    reconnectionTime = milliseconds
                }
            case 2 where Self.field(field, is: "id"):
                if let id = Self.lastEventID(value) {
                    try checkSize(type: type, id: id, data: dataSize, line: number)
                    idBuffer = id
                }
            default:
                break  // an unknown field, ignored
            }
        }

        /// The bytes of the event's data so far: its values joined with LFs, without the last LF.
        private var dataSize: Int {
            data.isEmpty ? 0 : data.count - 1
        }

        /// Throws unless an event with this type, last event ID and size of data fits the one
        /// budget of ``maximumEventSize``: checked before a field is kept, at the line that
        /// would change it.
        private func checkSize(type: String, id: String, data: Int, line: Int) throws {
            guard type.utf8.count + id.utf8.count + data <= maximumEventSize else {
                throw StreamElementError.elementTooLong(limit: maximumEventSize, line: line)
            }
        }

        /// Drops the event being read, and expects a new stream. Returns whether the event had any
        /// lines.
        mutating func endStream() -> Bool {
            defer {
                resetEvent()
                idBuffer = lastEventID
                isAtStart = true
            }
            return startLine != 0
        }

        /// The blank line: sets the last event ID, and hands over the event unless its data
        /// buffer is empty.
        private mutating func dispatch(_ handle: (ServerSentEvent, _ line: Int) throws -> Void) throws {
            lastEventID = idBuffer
            guard !data.isEmpty else {
                resetEvent()
                return
            }
            let text = data.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self)
            }
            let event = ServerSentEvent(
                type: type.isEmpty ? "message" : type,
                data: text,
                lastEventID: lastEventID,
                retry: retry
            )
            let line = startLine
            resetEvent()
            try handle(event, line)
        }

        private mutating func resetEvent() {
            if data.capacity > 64 * 1024 {
                data = []
            } else if !data.isEmpty {
                data.removeAll(keepingCapacity: true)
            }
            type = ""
            retry = nil
            startLine = 0
        }

        /// The last event ID an `id` field's value sets, or `nil` when the field is ignored: when
        /// the value contains NUL (the standard's rule) or is longer, as text, than
        /// ``ServerSentEventParser/maximumLastEventIDSize`` (Kilo's).
        private static func lastEventID(_ value: UnsafeRawBufferPointer) -> String? {
            // Decoding never shortens (bytes that are not UTF-8 become the 3 bytes of U+FFFD, one
            // to three of them at a time), so a value too long as bytes is not decoded at all.
            let limit = ServerSentEventParser.maximumLastEventIDSize
            guard value.count <= limit, !value.contains(ASCII.null) else { return nil }
            let id = String(decoding: value, as: UTF8.self)
            return id.utf8.count <= limit ? id : nil
        }

        private static func field(_ field: UnsafeRawBufferPointer, is name: StaticString) -> Bool {
            guard let base = field.baseAddress, field.count == name.utf8CodeUnitCount else { return false }
            return memcmp(base, name.utf8Start, field.count) == 0
        }

        /// The value as a base-ten integer, if it is one or more ASCII digits and fits in an `Int`.
        private static func digits(_ value: UnsafeRawBufferPointer) -> Int? {
            guard !value.isEmpty else { return nil }
            var result = 0
            for byte in value {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - 0x30))
                guard !overflow1, !overflow2 else { return nil }
                result = sum
            }
            return result
        }
    }
}
