import Foundation
import Kilo
import OpenAPIRuntime

/// What one parser got from a stream: the events and the bytes of their data, to check that the
/// parsers agree (and that the work is not optimised away).
struct Tally: Equatable {
    var events = 0
    var dataBytes = 0
}

/// The parsers under test, each reading a stream's chunks from an `AsyncSequence`.
enum Parsers {
    /// Kilo's ``ServerSentEventParser``, fed `Data` chunks.
    static func kilo(_ stream: SyntheticStream) async throws -> Tally {
        var parser = ServerSentEventParser()
        var tally = Tally()
        for await chunk in ChunkSequence(chunks: stream.dataChunks) {
            try parser.append(chunk) { event in
                tally.events += 1
                tally.dataBytes += event.data.utf8.count
            }
        }
        parser.finish()
        return tally
    }

    /// swift-openapi-runtime's `asDecodedServerSentEvents()`, fed `ArraySlice<UInt8>` chunks.
    static func openAPIRuntime(_ stream: SyntheticStream) async throws -> Tally {
        var tally = Tally()
        for try await event in ChunkSequence(chunks: stream.sliceChunks).asDecodedServerSentEvents() {
            tally.events += 1
            tally.dataBytes += event.data?.utf8.count ?? 0
        }
        return tally
    }

    /// A reference, not a parser: counts blank lines that follow a non-blank one (LF or CR LF
    /// endings only), finding LFs with `memchr`. No fields, no strings: the floor for a parser
    /// that reads every line.
    static func blankLineSplit(_ stream: SyntheticStream) async -> Tally {
        var tally = Tally()
        var lineLength = 0  // bytes since the last LF, across chunks
        var lastByte: UInt8 = 0  // the byte before the next LF, across chunks
        var eventLength = 0
        for await chunk in ChunkSequence(chunks: stream.dataChunks) {
            chunk.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                var start = 0
                while start < bytes.count {
                    guard let found = memchr(base + start, 0x0A, bytes.count - start) else {
                        lineLength += bytes.count - start
                        lastByte = bytes[bytes.count - 1]
                        return
                    }
                    let end = base.distance(to: UnsafeRawPointer(found))
                    lineLength += end - start
                    if end > start {
                        lastByte = bytes[end - 1]
                    }
                    if lineLength == 0 || (lineLength == 1 && lastByte == 0x0D) {
                        if eventLength > 0 {
                            tally.events += 1
                            tally.dataBytes += eventLength
                            eventLength = 0
                        }
                    } else {
                        eventLength += lineLength + 1
                    }
                    lineLength = 0
                    start = end + 1
                }
            }
        }
        return tally
    }
}
