import Foundation

/// Decodes a streamed JSON Lines (NDJSON) response, chunk by chunk: one JSON value per line.
///
/// Feed it the body's chunks as they arrive, split anywhere, then call ``finish(_:)`` at the end
/// of the stream. Each line that holds more than white space is decoded as a `Value` with the
/// parser's `JSONDecoder`; blank lines are skipped. A line ends at LF, CR or CR LF.
///
/// ```swift
/// struct Record: Decodable { var id: Int; var name: String }
///
/// var parser = JSONLinesParser(Record.self)
/// for try await chunk in body {            // an AsyncSequence of Data
///     try parser.append(chunk) { record in print(record.name) }
/// }
/// try parser.finish { record in print(record.name) }   // a last line without an ending
/// ```
///
/// When a call throws, the stream cannot be parsed further: discard the parser.
public struct JSONLinesParser<Value: Decodable>: Sendable {
    private var scanner: LineScanner
    private let decoder: JSONDecoder

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - decoder: The decoder for each line; Kilo's (``JSONCoding/makeDecoder()``, which reads
    ///     dates as milliseconds since 1970) unless given.
    ///   - maximumLineLength: The longest line, in bytes without its ending, that the parser
    ///     accepts; 1 MiB unless given. Must be at least 1.
    public init(
        _ type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONCoding.makeDecoder(),
        maximumLineLength: Int = 1 << 20
    ) {
        scanner = LineScanner(maximumLineLength: maximumLineLength)
        self.decoder = decoder
    }

    /// The longest line, in bytes without its ending, that the parser accepts.
    public var maximumLineLength: Int {
        scanner.maximumLineLength
    }

    /// Parses the next chunk of the stream, and hands the value of each line it completes to
    /// `handle`.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the stream.
    ///   - handle: Called with each line's value, in order.
    /// - Throws: ``StreamElementError/undecodableJSON(line:underlyingError:)`` for a line that does
    ///   not decode as a `Value` (with the decoder's error);
    ///   ``StreamElementError/elementTooLong(limit:line:)`` for a line longer than
    ///   ``maximumLineLength``; or what `handle` throws. The values of the lines before the one at
    ///   fault have been delivered.
    public mutating func append(_ chunk: Data, _ handle: (Value) throws -> Void) throws {
        let decoder = decoder
        try chunk.withUnsafeBytes { bytes in
            try scanner.scan(bytes) { line, number in try Self.decode(line, number: number, with: decoder, handle) }
        }
    }

    /// Ends the stream: decodes its last line if the stream did not end with a line ending, and
    /// resets the parser.
    ///
    /// - Parameter handle: Called with the last line's value, if there is one.
    /// - Throws: ``StreamElementError/undecodableJSON(line:underlyingError:)`` for a last line
    ///   that does not decode, or what `handle` throws.
    public mutating func finish(_ handle: (Value) throws -> Void) throws {
        let decoder = decoder
        try scanner.finish { line, number in try Self.decode(line, number: number, with: decoder, handle) }
    }

    private static func decode(
        _ line: UnsafeRawBufferPointer,
        number: Int,
        with decoder: JSONDecoder,
        _ handle: (Value) throws -> Void
    ) throws {
        guard line.contains(where: { $0 != ASCII.space && $0 != ASCII.tab }) else {
            return  // a blank line
        }
        let value: Value
        do {
            value = try decoder.decode(Value.self, from: Data(line))
        } catch {
            throw StreamElementError.undecodableJSON(line: number, underlyingError: error)
        }
        try handle(value)
    }
}
