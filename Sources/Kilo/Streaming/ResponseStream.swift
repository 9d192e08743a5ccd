import Foundation
import KiloCore
import KiloTransport

/// A successful response whose body is read as it arrives, as a sequence of elements: what
/// ``WebServiceProxy/stream(_:path:arguments:content:contentType:as:)`` returns.
///
/// Its ``StreamFormat`` says what an element is: a chunk of bytes, a line, a server-sent event,
/// or a value decoded from JSON. Elements come as soon as the bytes that complete them arrive,
/// and only as fast as they are read: a reader slower than the server holds the transfer back
/// (see Docs/Streaming.md), so memory stays bounded whatever the length of the stream.
///
/// ```swift
/// let answer = try await proxy.stream(
///     .post, path: "chat", body: question,
///     as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]"))
/// for try await chunk in answer {
///     print(chunk.choices[0].delta.content ?? "", terminator: "")
/// }
/// ```
///
/// Read a stream once. Leaving the loop early (`break`, a `return`, a thrown error), cancelling
/// the reading task, or ``cancel()`` cancels the request and closes its connection; so does
/// dropping a stream that was never read. A stream ends when its response ends; an element cut
/// off by a lost connection is not delivered, and the stream throws the transport's `URLError`.
public struct ResponseStream<Element>: AsyncSequence, Sendable {
    /// The status code of the response, in the 2xx range.
    public let statusCode: Int
    /// The response's header fields.
    public let headers: HTTPHeaders

    private let connection: Connection
    private let format: StreamFormat<Element>
    private let makeDecoder: @Sendable () -> JSONDecoder
    private let maximumElementSize: Int

    /// Creates a stream of a response whose head has arrived.
    ///
    /// - Parameters:
    ///   - response: The response, with a 2xx status.
    ///   - format: What an element is.
    ///   - makeDecoder: Makes the JSON decoder of a format that decodes.
    ///   - maximumElementSize: The most bytes of one element.
    ///   - deadline: The seconds each connection may take, to report in a `LimitError`.
    ///   - reopen: Opens another connection for a reconnecting event stream, with the last event
    ///     ID to send; returns `nil` for a 204 response. Ignored without a format's reconnection.
    init(
        _ response: StreamedResponse,
        format: StreamFormat<Element>,
        makeDecoder: @escaping @Sendable () -> JSONDecoder,
        maximumElementSize: Int,
        deadline: TimeInterval?,
        reopen: (@Sendable (_ lastEventID: String) async throws -> ResponseBody?)?
    ) {
        statusCode = response.statusCode
        headers = response.headers
        // A 204 has no stream to resume: `EventSource` does not reconnect after one.
        let canReconnect = format.reconnection != nil && response.statusCode != 204
        connection = Connection(body: response.body, deadline: deadline, reopen: canReconnect ? reopen : nil)
        self.format = format
        self.makeDecoder = makeDecoder
        self.maximumElementSize = maximumElementSize
    }

    /// Stops reading: the request, or a reconnection's wait, is cancelled and its connection
    /// closed, and the reader gets `URLError(.cancelled)` at its next read, or at once if it is
    /// waiting (a transport that ignores task cancellation is waited for, its body then
    /// cancelled); elements already received are not handed out. Does nothing once the stream
    /// has ended.
    public func cancel() {
        connection.cancel()
    }

    /// Makes the iterator; a stream is read once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            reading: Reading(
                connection: connection,
                parser: format.makeParser(makeDecoder, maximumElementSize),
                reconnection: format.reconnection
            )
        )
    }

    /// Reads a stream's elements in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let reading: Reading

        fileprivate init(reading: Reading) {
            self.reading = reading
        }

        /// The next element, or `nil` at the end of the stream.
        ///
        /// - Throws: ``StreamElementError`` for an element that is too long, not UTF-8, or does
        ///   not decode (after the elements before it); the transport's `URLError` for a
        ///   connection lost, `URLError(.cancelled)` once cancelled; ``LimitError`` past the
        ///   proxy's deadline; ``WebServiceError`` when a reconnecting event stream gets a status
        ///   outside 2xx, ``UnexpectedContentTypeError`` when it gets a response of another type.
        public mutating func next() async throws -> Element? {
            try await reading.next()
        }
    }
}

extension ResponseStream {
    /// The connection a stream reads from: the current response body, which a reconnection
    /// replaces, the reconnection under way, and whether the stream was cancelled.
    final class Connection: Sendable {
        private struct State: Sendable {
            var body: ResponseBody
            /// The wait and the request of a reconnection, which cancelling stops.
            var reconnection: Task<ResponseBody?, any Error>?
            var isCancelled = false
        }

        private let state: Locked<State>
        /// The seconds each connection may take, or `nil`.
        let deadline: TimeInterval?
        /// Opens another connection, or `nil` when the stream does not reconnect.
        let reopen: (@Sendable (_ lastEventID: String) async throws -> ResponseBody?)?

        init(
            body: ResponseBody,
            deadline: TimeInterval?,
            reopen: (@Sendable (_ lastEventID: String) async throws -> ResponseBody?)?
        ) {
            state = Locked(State(body: body))
            self.deadline = deadline
            self.reopen = reopen
        }

        /// The current body.
        var body: ResponseBody {
            state.withLock { $0.body }
        }

        /// Makes `body` the current one; returns `false`, cancelling it, once the stream is cancelled.
        func replace(with body: ResponseBody) -> Bool {
            let isCancelled = state.withLock { state in
                if !state.isCancelled {
                    state.body = body
                }
                return state.isCancelled
            }
            if isCancelled {
                body.cancel()
            }
            return !isCancelled
        }

        /// Cancels the current body, a reconnection under way, and any later one.
        func cancel() {
            let (body, reconnection) = state.withLock { state in
                state.isCancelled = true
                return (state.body, state.reconnection)
            }
            body.cancel()
            reconnection?.cancel()
        }

        /// Waits `seconds`, then opens another connection with `lastEventID`, in a task that
        /// ``cancel()`` cancels as well as the reader's: a reader that is not itself cancelled
        /// must not wait out a long `retry` or an unanswered request once the stream is.
        ///
        /// - Returns: The new body, not yet made current; `nil` for a 204.
        /// - Throws: `URLError(.cancelled)` once cancelled; what opening the connection throws.
        func reconnect(after seconds: TimeInterval, lastEventID: String) async throws -> ResponseBody? {
            guard let reopen else { return nil }
            let reconnection = Task {
                do {
                    try await Task.sleep(nanoseconds: Deadline.nanoseconds(seconds))
                } catch {
                    throw URLError(.cancelled)
                }
                return try await reopen(lastEventID)
            }
            let isCancelled = state.withLock { state in
                state.reconnection = reconnection
                return state.isCancelled
            }
            if isCancelled {
                reconnection.cancel()
            }
            defer { state.withLock { $0.reconnection = nil } }
            return try await withTaskCancellationHandler {
                try await reconnection.value
            } onCancel: {
                reconnection.cancel()
            }
        }

        /// Whether ``cancel()`` was called.
        var isCancelled: Bool {
            state.withLock { $0.isCancelled }
        }
    }

    /// One reading of a stream: the parser, the elements of the last chunk not yet returned, and
    /// the body's iterator. Dropping it before the end cancels the request, so that leaving a
    /// `for try await` loop closes the connection even while the stream itself is still held.
    ///
    /// Not `Sendable`: an iterator reads it, one `next()` at a time.
    final class Reading {
        private let connection: Connection
        private var chunks: ResponseBody.AsyncIterator
        private var parser: ElementParser<Element>
        private let reconnection: EventStreamReconnection?
        /// The elements of the last chunk, from `nextIndex` on still to be returned.
        private var pending: [Element] = []
        private var nextIndex = 0
        /// What ended the stream, thrown once the elements before it have been returned.
        private var failure: (any Error)?
        private var isFinished = false
        /// Reconnections since an element was last returned.
        private var reconnections = 0

        init(connection: Connection, parser: ElementParser<Element>, reconnection: EventStreamReconnection?) {
            self.connection = connection
            self.chunks = connection.body.makeAsyncIterator()
            self.parser = parser
            self.reconnection = connection.reopen == nil ? nil : reconnection
        }

        deinit {
            connection.cancel()  // nothing to do for a body that has ended
        }

        func next() async throws -> Element? {
            while true {
                if failure == nil, !isFinished, Task.isCancelled || connection.isCancelled {
                    finish(throwing: URLError(.cancelled))
                }
                if nextIndex < pending.count {
                    let element = pending[nextIndex]
                    nextIndex += 1
                    reconnections = 0
                    return element
                }
                if !pending.isEmpty {
                    pending.removeAll(keepingCapacity: true)
                    nextIndex = 0
                }
                if let failure {
                    self.failure = nil
                    isFinished = true
                    throw failure
                }
                if isFinished {
                    return nil
                }
                if parser.isTerminated() {
                    connection.cancel()  // the rest of the response is not read
                    isFinished = true
                    continue
                }
                do {
                    if let chunk = try await nextChunk() {
                        try parser.append(chunk) { pending.append($0) }
                    } else {
                        try parser.finish { pending.append($0) }
                        isFinished = true
                    }
                } catch {
                    finish(throwing: error)
                }
            }
        }

        /// Ends the stream with `error`, after the elements already parsed, and stops the transfer.
        /// A cancelled stream hands out nothing more, not even the elements it has parsed.
        private func finish(throwing error: any Error) {
            connection.cancel()
            if (error as? URLError)?.code == .cancelled {
                pending.removeAll()
                nextIndex = 0
            }
            if let limit = error as? LimitError, limit.name == "deadline", let deadline = connection.deadline {
                // The body's timer counts what was left of the deadline when the head arrived.
                failure = LimitError.deadlineExceeded(after: deadline)
            } else {
                failure = error
            }
        }

        /// The next chunk of the body, reconnecting when the stream does; `nil` at the end.
        private func nextChunk() async throws -> Data? {
            var lastError: URLError?
            while true {
                if lastError == nil {
                    do {
                        if let chunk = try await chunks.next() {
                            return chunk
                        }
                    } catch let error as URLError where reconnection != nil && error.code != .cancelled {
                        lastError = error
                    }
                }
                guard let reconnection, connection.reopen != nil else {
                    return nil
                }
                guard !Task.isCancelled else { throw URLError(.cancelled) }
                if let maximum = reconnection.maximumAttempts, reconnections >= maximum {
                    if let lastError { throw lastError }
                    return nil
                }
                try parser.finish { pending.append($0) }  // drops the event the connection ended inside
                let (lastEventID, retry) = parser.eventStream()
                reconnections += 1
                do {
                    let delay = EventStreamReconnection.wait(
                        before: reconnections,
                        reconnectionTime: reconnection.reconnectionTime(retry: retry)
                    )
                    guard let body = try await connection.reconnect(after: delay, lastEventID: lastEventID) else {
                        return nil  // 204: the server wants no more reconnections
                    }
                    guard connection.replace(with: body) else { throw URLError(.cancelled) }
                    chunks = body.makeAsyncIterator()
                    lastError = nil
                } catch let error as URLError where error.code != .cancelled && !Task.isCancelled {
                    lastError = error
                }
            }
        }
    }
}
