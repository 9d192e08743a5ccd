import Foundation

/// A synthetic event stream, held in memory and cut into equal chunks, in the two forms the
/// parsers take: `Data` (Kilo, and the bare split) and `ArraySlice<UInt8>` (swift-openapi-runtime).
struct SyntheticStream {
    var name: String
    var bytes: [UInt8]
    var events: Int
    var dataChunks: [Data]
    var sliceChunks: [ArraySlice<UInt8>]

    /// The JSON of a chat-completion chunk (OpenAI's shape) with the `index`th token, in three parts
    /// that make valid JSON when joined, with or without line feeds between them.
    static func chunkJSON(_ index: Int) -> [String] {
        let tokens = ["Hello", " there", ",", " how", " can", " I", " help", " you", " today", "?", " Ünï", " 🚀"]
        let token = tokens[index % tokens.count]
        return [
            #"{"id":"chatcmpl-9xKq2vZ\#(index % 1000)","object":"chat.completion.chunk","created":\#(1_726_000_000 + index / 50),"#,
            #""model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_e2bde53e6e","#,
            #""choices":[{"index":0,"delta":{"content":"\#(token)"},"logprobs":null,"finish_reason":null}]}"#,
        ]
    }

    /// About `size` bytes of events, one `data:` line each, LF endings.
    static func singleLine(size: Int, chunkSize: Int) -> SyntheticStream {
        make(name: "(a) 1 data line, LF", size: size, chunkSize: chunkSize) { index in
            "data: " + chunkJSON(index).joined() + "\n\n"
        }
    }

    /// About `size` bytes of events, the same JSON over three `data:` lines, CR LF endings.
    static func threeLines(size: Int, chunkSize: Int) -> SyntheticStream {
        make(name: "(b) 3 data lines, CRLF", size: size, chunkSize: chunkSize) { index in
            chunkJSON(index).map { "data: " + $0 + "\r\n" }.joined() + "\r\n"
        }
    }

    private static func make(name: String, size: Int, chunkSize: Int, event: (Int) -> String) -> SyntheticStream {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 1024)
        var events = 0
        while bytes.count < size {
            bytes.append(contentsOf: event(events).utf8)
            events += 1
        }
        var dataChunks: [Data] = []
        var sliceChunks: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            dataChunks.append(Data(bytes[start..<end]))
            sliceChunks.append(bytes[start..<end])
            start = end
        }
        return SyntheticStream(
            name: name,
            bytes: bytes,
            events: events,
            dataChunks: dataChunks,
            sliceChunks: sliceChunks
        )
    }
}

/// Chunks handed out one by one, as a response body's `AsyncSequence` would.
struct ChunkSequence<Chunk: Sendable>: AsyncSequence, Sendable {
    typealias Element = Chunk

    let chunks: [Chunk]

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: IndexingIterator<[Chunk]>

        mutating func next() async -> Chunk? {
            chunks.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeIterator())
    }
}
