import Foundation

/// Splits a streamed text response into lines, chunk by chunk.
///
/// Feed it the body's chunks as they arrive, split anywhere (inside a UTF-8 character, or
/// between the CR and the LF of one ending), then call ``finish(_:)`` at the end of the stream.
/// A line ends at LF, CR or CR LF; the ending is not part of the line. Blank lines are kept. The
/// parser keeps only the unfinished last line between chunks, and throws rather than keep one
/// longer than ``maximumLineLength``.
///
/// ```swift
/// var parser = LineParser()
/// for try await chunk in body {            // an AsyncSequence of Data
///     try parser.append(chunk) { line in print(line) }
/// }
/// try parser.finish { line in print(line) }   // a last line without an ending
/// ```
///
/// When a call throws, the stream cannot be parsed further: discard the parser.
public struct LineParser: Sendable {
    private var scanner: LineScanner

    /// Creates a parser.
    ///
    /// - Parameter maximumLineLength: The longest line, in bytes without its ending, that the
    ///   parser accepts; 1 MiB unless given. Must be at least 1.
    public init(maximumLineLength: Int = 1 << 20) {
        scanner = LineScanner(maximumLineLength: maximumLineLength)
    }

    /// The longest line, in bytes without its ending, that the parser accepts.
    public var maximumLineLength: Int {
        scanner.maximumLineLength
    }

    /// The number of lines delivered so far.
    public var lineCount: Int {
        scanner.lineCount
    }

    /// Parses the next chunk of the stream, and hands each line it completes to `handle`.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the stream.
    ///   - handle: Called with each complete line, in order, without its ending.
    /// - Throws: ``StreamElementError/elementTooLong(limit:line:)`` for a line longer than
    ///   ``maximumLineLength``; ``StreamElementError/invalidUTF8(line:)`` for a line that is not
    ///   UTF-8; or what `handle` throws. The lines before the one at fault have been delivered.
    public mutating func append(_ chunk: Data, _ handle: (String) throws -> Void) throws {
        try chunk.withUnsafeBytes { bytes in
            try scanner.scan(bytes) { line, number in try handle(Self.text(line, number: number)) }
        }
    }

    /// Ends the stream: hands its last line to `handle` if the stream did not end with a line
    /// ending, and resets the parser.
    ///
    /// - Parameter handle: Called with the last line, if there is one.
    /// - Throws: ``StreamElementError/invalidUTF8(line:)`` for a last line that is not UTF-8, or
    ///   what `handle` throws.
    public mutating func finish(_ handle: (String) throws -> Void) throws {
        try scanner.finish { line, number in try handle(Self.text(line, number: number)) }
    }

    private static func text(_ line: UnsafeRawBufferPointer, number: Int) throws -> String {
        let text = line.withMemoryRebound(to: UInt8.self) { String(validating: $0, as: UTF8.self) }
        guard let text else { throw StreamElementError.invalidUTF8(line: number) }
        return text
    }
}
