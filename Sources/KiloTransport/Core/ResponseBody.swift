import Foundation

/// A response body as it arrives: an asynchronous sequence of byte chunks, read once.
///
/// Transports deliver every body this way, decoded (after any `Content-Encoding`), in bounded
/// memory: a reader slower than the network pauses the transfer, or, where the platform cannot
/// pause one (URLSession on Linux), fails it with ``LimitError/consumerTooSlow(bufferLimit:)``
/// once 32 MiB wait (see Docs/Transports.md).
///
/// Stopping early (a `break`, or dropping the body) and cancelling the reading task cancel the
/// request and release its connection.
///
/// ```swift
/// let response = try await transport.stream(request)
/// for try await chunk in response.body {
///     print("received \(chunk.count) bytes")
/// }
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    /// The reader's hold on the buffer: when the body and its iterators are all gone, the
    /// transfer is cancelled, unless it has ended.
    final class Reader: Sendable {
        let buffer: BodyBuffer

        init(_ buffer: BodyBuffer) {
            self.buffer = buffer
        }

        deinit {
            if !buffer.hasEnded {
                buffer.cancel(with: URLError(.cancelled))
            }
        }
    }

    let reader: Reader

    /// The buffer the body is read from.
    package var buffer: BodyBuffer { reader.buffer }

    /// Creates a body that a transport fills.
    package init(_ buffer: BodyBuffer) {
        self.reader = Reader(buffer)
    }

    /// Creates a body of bytes already in memory.
    ///
    /// - Parameter data: The whole body.
    public init(_ data: Data = Data()) {
        self.init(BodyBuffer(finishedWith: data))
    }

    /// Creates a body whose chunks come from another sequence, such as an `AsyncThrowingStream`
    /// your own transport feeds.
    ///
    /// The sequence is read as the body is, at most about 1 MiB ahead; dropping the body stops
    /// reading it.
    ///
    /// - Parameter chunks: The chunks, in order; an error it throws ends the body with it.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        let buffer = BodyBuffer()
        let pump = Task {
            do {
                for try await chunk in chunks {
                    await buffer.writable()
                    guard !buffer.hasEnded else { return }
                    buffer.append(chunk)
                }
                buffer.finish()
            } catch {
                buffer.finish(throwing: error is CancellationError ? URLError(.cancelled) : error)
            }
        }
        buffer.attach(BodyBuffer.Producer(cancel: { pump.cancel() }))
        self.init(buffer)
    }

    /// Stops reading: the transfer is cancelled, and a reader waiting for a chunk gets
    /// `URLError(.cancelled)`. Does nothing once the body has ended.
    public func cancel() {
        buffer.cancel(with: URLError(.cancelled))
    }

    /// Makes the iterator; a body is read once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: reader)
    }

    /// Reads a body's chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: Reader

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// - Throws: The error that ended the transfer, such as a `URLError`, or a ``LimitError``.
        public mutating func next() async throws -> Data? {
            try await reader.buffer.next()
        }
    }
}
