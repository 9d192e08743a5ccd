import Foundation
import KiloCore

/// A response body as a hostile server might send it, with a limit and a way to cut it into
/// chunks, decoded from fuzz bytes.
///
/// Format (missing bytes read as zero):
///
/// - 1 byte: the limit on a line or event. `byte & 3`: 0 gives 1 MiB (the parsers' default),
///   1 gives 1–64 bytes, 2 gives 65–128, 3 gives 1–4,033 in steps of 64 (`byte >> 2` picks the
///   value).
/// - 1 byte: `k`, the number of chunk sizes, modulo 9.
/// - `k` bytes: chunk sizes, used in turn until the body runs out; a 0 is an empty chunk. With no
///   sizes, or only zeros, the body is one chunk.
/// - 1 byte: the `Content-Type` of the error response (``contentTypes``), and the rest: the body.
struct StreamInput {
    static let contentTypes = [
        "text/plain", "text/plain; charset=utf-8", "text/html; charset=ISO-8859-1",
        "text/plain; charset=utf-16", "text/plain; charset=\"shift_jis\"", "text/csv; charset=x-bogus",
        "application/json", "Text/Plain ; Charset=UTF-8",
    ]

    let limit: Int
    let chunkSizes: [Int]
    let contentType: String
    let body: [UInt8]

    init(_ bytes: [UInt8]) {
        var input = bytes[...]
        func next() -> Int { Int(input.popFirst() ?? 0) }
        let limitByte = next()
        switch limitByte & 3 {
        case 0: limit = 1 << 20
        case 1: limit = 1 + (limitByte >> 2)
        case 2: limit = 65 + (limitByte >> 2)
        default: limit = 1 + (limitByte >> 2) * 64
        }
        let count = next() % 9
        chunkSizes = (0..<count).map { _ in next() }
        contentType = Self.contentTypes[next() % Self.contentTypes.count]
        body = Array(input)
    }

    /// The body cut as ``chunkSizes`` say.
    var chunks: [Data] {
        guard chunkSizes.contains(where: { $0 > 0 }) else { return [Data(body)] }
        var chunks: [Data] = []
        var start = 0
        var turn = 0
        while start < body.count {
            let size = chunkSizes[turn % chunkSizes.count]
            turn += 1
            let end = min(start + size, body.count)
            chunks.append(Data(body[start..<end]))
            start = end
        }
        return chunks
    }

    /// The body a byte at a time, for bodies short enough that this stays quick.
    var bytewiseChunks: [Data]? {
        body.count <= 2048 ? body.map { Data([$0]) } : nil
    }
}

/// A body's lines as the event stream format and the line parsers split them: at LF, CR or
/// CR LF. Written for clarity over the whole body, not for speed, to check the parsers'
/// chunk-by-chunk scanning against.
struct Lines {
    /// The lines that ended, without their endings.
    var ended: [ArraySlice<UInt8>] = []
    /// What follows the last ending: a line the body ended inside, or empty.
    var tail: ArraySlice<UInt8>

    init(_ body: [UInt8]) {
        var start = 0
        var index = 0
        while index < body.count {
            switch body[index] {
            case 0x0A:
                ended.append(body[start..<index])
                index += 1
                start = index
            case 0x0D:
                ended.append(body[start..<index])
                index += index + 1 < body.count && body[index + 1] == 0x0A ? 2 : 1
                start = index
            default:
                index += 1
            }
        }
        tail = body[start...]
    }

    /// Hands each line, and then the line the body ended inside (if any), to `take` with its
    /// number, until `take` returns an error; a line longer than `limit` ends the walk with
    /// `elementTooLong` at that line, as the parsers' scanner does.
    ///
    /// - Returns: The error that ended the walk, or `nil`.
    func walk(limit: Int, _ take: (_ line: ArraySlice<UInt8>, _ number: Int) -> StreamElementError?)
        -> StreamElementError?
    {
        for (offset, line) in (tail.isEmpty ? ended : ended + [tail]).enumerated() {
            guard line.count <= limit else { return .elementTooLong(limit: limit, line: offset + 1) }
            if let error = take(line, offset + 1) { return error }
        }
        return nil
    }
}

extension Array where Element == Data {
    /// Feeds each chunk to `append`, then calls `finish`, as a caller of a streaming parser does.
    ///
    /// - Returns: The `StreamElementError` that stopped the parser, or `nil`; any other error
    ///   fails the run, since the parsers throw no other.
    func feed(
        _ parser: String,
        _ append: (Data) throws -> Void,
        finish: () throws -> Void = {}
    ) -> StreamElementError? {
        do {
            for chunk in self {
                try append(chunk)
            }
            try finish()
            return nil
        } catch let error as StreamElementError {
            return error
        } catch {
            fatalError("\(parser) threw \(String(reflecting: error)), not a StreamElementError")
        }
    }
}
