import Foundation

/// Splits a stream of bytes into lines, chunk by chunk: the engine under the streaming parsers.
///
/// A line ends at LF, CR or CR LF (as the event stream format says, and as text from any platform
/// ends); a CR at the end of one chunk and an LF at the start of the next are one ending. The
/// scanner finds endings with `memchr`, hands each line that lies wholly in a chunk over in place,
/// without a copy, and keeps only a chunk's unfinished last line, in a buffer it reuses. That
/// buffer never grows past the maximum line length: the scanner throws first.
struct LineScanner: Sendable {
    /// The longest line, in bytes without its ending, that the scanner hands over.
    let maximumLineLength: Int

    /// The number of lines handed over so far.
    private(set) var lineCount = 0

    /// The start of a line whose ending has not arrived yet.
    private var tail: [UInt8] = []

    /// Whether the last chunk ended with a CR, so an LF that starts the next one ends nothing.
    private var skipsLineFeed = false

    /// A tail buffer larger than this, kept after one long line, is given back to the allocator.
    private static let keptCapacity = 64 * 1024

    /// Creates a scanner.
    ///
    /// - Parameter maximumLineLength: The longest line, in bytes; at least 1.
    init(maximumLineLength: Int) {
        precondition(maximumLineLength > 0, "the maximum line length must be at least 1 byte")
        self.maximumLineLength = maximumLineLength
    }

    /// Hands each line that `bytes` completes to `handle`, with its 1-based number, and keeps the
    /// unfinished rest.
    ///
    /// The buffer passed to `handle` is valid only during the call.
    ///
    /// - Throws: ``StreamElementError/elementTooLong(limit:line:)`` for a line longer than the
    ///   limit, or what `handle` throws.
    mutating func scan(
        _ bytes: UnsafeRawBufferPointer,
        _ handle: (_ line: UnsafeRawBufferPointer, _ number: Int) throws -> Void
    ) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = bytes.count
        var start = 0
        if skipsLineFeed {
            skipsLineFeed = false
            if base.load(as: UInt8.self) == ASCII.lineFeed { start = 1 }
        }
        // The next LF and CR at or after `start`, or `end` for none: each search runs once over
        // a stretch without that byte, so a chunk of lone CRs (or lone LFs) stays linear.
        var nextLineFeed = -1
        var nextCarriageReturn = -1
        while start < end {
            if nextLineFeed < start {
                nextLineFeed = Self.index(of: ASCII.lineFeed, in: base, from: start, to: end)
            }
            if nextCarriageReturn < start {
                nextCarriageReturn = Self.index(of: ASCII.carriageReturn, in: base, from: start, to: end)
            }
            let lineEnd = min(nextLineFeed, nextCarriageReturn)
            guard lineEnd < end else {
                try keep(UnsafeRawBufferPointer(start: base + start, count: end - start))
                return
            }
            try deliver(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start), handle)
            if lineEnd == nextLineFeed {
                start = lineEnd + 1
            } else if lineEnd + 1 == end {
                skipsLineFeed = true
                return
            } else {
                start =
                    base.load(fromByteOffset: lineEnd + 1, as: UInt8.self) == ASCII.lineFeed ? lineEnd + 2 : lineEnd + 1
            }
        }
    }

    /// Hands the unfinished last line, if the stream ended without a line ending after it, to
    /// `handle`, and resets the scanner for a new stream.
    ///
    /// - Returns: Whether there was such a line.
    /// - Throws: What `handle` throws.
    @discardableResult
    mutating func finish(_ handle: (_ line: UnsafeRawBufferPointer, _ number: Int) throws -> Void) throws -> Bool {
        skipsLineFeed = false
        guard !tail.isEmpty else { return false }
        lineCount += 1
        let number = lineCount
        defer { tail = [] }
        try tail.withUnsafeBytes { try handle($0, number) }
        return true
    }

    /// Drops the unfinished last line, if any, and resets the scanner for a new stream.
    ///
    /// - Returns: Whether there was such a line.
    mutating func discardTail() -> Bool {
        skipsLineFeed = false
        defer { tail = [] }
        return !tail.isEmpty
    }

    private mutating func deliver(
        _ line: UnsafeRawBufferPointer,
        _ handle: (_ line: UnsafeRawBufferPointer, _ number: Int) throws -> Void
    ) throws {
        guard tail.count + line.count <= maximumLineLength else {
            throw StreamElementError.elementTooLong(limit: maximumLineLength, line: lineCount + 1)
        }
        lineCount += 1
        if tail.isEmpty {
            try handle(line, lineCount)
            return
        }
        tail.append(contentsOf: line)
        defer {
            if tail.capacity > Self.keptCapacity {
                tail = []
            } else {
                tail.removeAll(keepingCapacity: true)
            }
        }
        let number = lineCount
        try tail.withUnsafeBytes { try handle($0, number) }
    }

    private mutating func keep(_ bytes: UnsafeRawBufferPointer) throws {
        guard tail.count + bytes.count <= maximumLineLength else {
            throw StreamElementError.elementTooLong(limit: maximumLineLength, line: lineCount + 1)
        }
        tail.append(contentsOf: bytes)
    }

    /// The offset of the first `byte` in `base[start..<end]`, or `end`.
    @inline(__always)
    private static func index(of byte: UInt8, in base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
        guard let found = memchr(base + start, Int32(byte), end - start) else { return end }
        return base.distance(to: UnsafeRawPointer(found))
    }
}

/// The bytes the streaming parsers look for.
enum ASCII {
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let null: UInt8 = 0x00
}
