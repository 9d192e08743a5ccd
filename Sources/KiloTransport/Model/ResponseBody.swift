import Foundation

/// A response body as it arrives: an asynchronous sequence of byte chunks, read once.
///
/// Transports deliver every body this way, decoded (after any `Content-Encoding`), in bounded
/// memory: a reader slower than the network pauses the transfer, or, where the platform cannot
/// pause one (URLSession on Linux), leaves what it has not read past 1 MiB in temporary files, up
/// to ``defaultMaximumUnreadSize`` or the limit a proxy sets (see Docs/Transports.md).
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
    /// transfer is cancelled, and what waits unread is dropped.
    final class Reader: Sendable {
        let buffer: BodyBuffer

        init(_ buffer: BodyBuffer) {
            self.buffer = buffer
        }

        deinit {
            buffer.cancel(with: URLError(.cancelled))  // nothing to do once the reader has had it all
        }
    }

    let reader: Reader

    /// The most bytes of a body that wait for a reader slower than the server unless a limit is
    /// set (`WebServiceProxy.Limits.maximumUnreadSize`): 64 MiB. Only a transport that cannot
    /// slow the server down (URLSession on Linux) keeps such bytes, on disk past the first MiB;
    /// a reader 64 MiB behind a stream is not catching up, and a hostile server can fill no more
    /// than this of the disk.
    public static let defaultMaximumUnreadSize = 64 << 20

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
        let (body, writer) = Self.makeWritable()
        let pump = Task {
            do {
                for try await chunk in chunks {
                    guard await writer.write(chunk) else { return }
                }
                writer.finish()
            } catch {
                writer.finish(throwing: error is CancellationError ? URLError(.cancelled) : error)
            }
        }
        writer.onCancel { pump.cancel() }
        self = body
    }

    /// Makes a body that a producer of your own feeds, such as a transport that receives
    /// chunks from callbacks, and the writer that feeds it.
    ///
    /// ```swift
    /// let (body, writer) = ResponseBody.makeWritable()
    /// writer.onCancel { connection.close() }   // the reader stopped reading
    /// for await chunk in connection.chunks {
    ///     guard await writer.write(chunk) else { break }   // waits while 1 MiB is unread
    /// }
    /// writer.finish()
    /// ```
    ///
    /// - Returns: The body, and its writer.
    public static func makeWritable() -> (body: ResponseBody, writer: Writer) {
        let buffer = BodyBuffer()
        return (ResponseBody(buffer), Writer(buffer: buffer))
    }

    /// Feeds a body made by ``ResponseBody/makeWritable()``.
    public struct Writer: Sendable {
        let buffer: BodyBuffer

        /// Adds a chunk for the reader, first waiting while about 1 MiB waits unread, so that a
        /// slow reader slows the producer down.
        ///
        /// - Parameter chunk: The bytes.
        /// - Returns: `false` when the body has ended (its reader cancelled it): stop producing.
        @discardableResult
        public func write(_ chunk: Data) async -> Bool {
            await buffer.writable()
            guard !buffer.hasEnded else { return false }
            buffer.append(chunk)
            return true
        }

        /// Ends the body: the reader gets what waits, then the end, or `error`.
        ///
        /// - Parameter error: The error that ended the transfer, or `nil` for a complete body.
        public func finish(throwing error: (any Error)? = nil) {
            buffer.finish(throwing: error)
        }

        /// Sets what stops the producer when the reader cancels the body or drops it; called at
        /// once if it has already.
        ///
        /// - Parameter cancel: Stops the transfer; it may run on any thread.
        public func onCancel(_ cancel: @escaping @Sendable () -> Void) {
            buffer.attach(BodyBuffer.Producer(cancel: cancel))
        }
    }

    /// Stops reading: the transfer is cancelled, and a reader waiting for a chunk gets
    /// `URLError(.cancelled)`, as does the next read of a body that ended with chunks unread.
    /// Does nothing once the reader has had the whole body.
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
