import Foundation

/// The chunks of one response body between the transport that receives them and the one reader
/// that takes them: a queue bounded in bytes.
///
/// The producer (a URLSession task's delegate, or a task that pulls another sequence) appends
/// chunks and finishes; the reader takes them one at a time with ``next()``. When more than
/// ``Policy/pauseAbove`` bytes wait, the buffer asks the producer to pause, and to resume once
/// the reader has taken them. For a producer that cannot pause (Linux's URLSession), what comes
/// past that mark waits in a ``SpillFile`` on disk, read back in order, so memory stays bounded
/// whatever the reader's speed; what waits there is bounded too (see ``limitUnread(to:)``), and
/// a file that cannot be written fails the body at once.
///
/// Cancelling (the reader stops, a deadline passes) fails the buffer and tells the producer to
/// stop its transfer. So does passing a limit set with ``limit(to:failingWith:)``, counted as the
/// producer appends, so that a reader that stops at a limit need not first catch up with a
/// producer that cannot pause.
package final class BodyBuffer: Sendable {
    /// How a buffer treats a reader slower than its producer.
    package struct Policy: Sendable {
        /// Above this many waiting bytes a producer that can is asked to pause, and one that
        /// pulls waits in ``writable()``.
        package var pauseAbove: Int
        /// Whether the producer can pause; what comes past the mark from one that cannot waits on
        /// disk.
        package var canPause: Bool

        /// For a producer that pauses: 1 MiB waits at most, and a little more in flight.
        package static let pausing = Policy(pauseAbove: 1 << 20, canPause: true)

        /// For a producer that cannot pause: 1 MiB waits in memory, the rest on disk.
        package static let spilling = Policy(pauseAbove: 1 << 20, canPause: false)

        package init(pauseAbove: Int, canPause: Bool) {
            self.pauseAbove = pauseAbove
            self.canPause = canPause
        }
    }

    /// What the producer does when asked; each may be called from any thread.
    package struct Producer: Sendable {
        /// Stops the transfer: the reader is gone, or the body failed.
        package var cancel: @Sendable () -> Void
        /// Pauses the transfer while too much waits.
        package var pause: @Sendable () -> Void = {}
        /// Resumes a paused transfer.
        package var resume: @Sendable () -> Void = {}

        package init(
            cancel: @escaping @Sendable () -> Void,
            pause: @escaping @Sendable () -> Void = {},
            resume: @escaping @Sendable () -> Void = {}
        ) {
            self.cancel = cancel
            self.pause = pause
            self.resume = resume
        }
    }

    struct State: @unchecked Sendable {
        // `@unchecked Sendable`: the queue's spill file, a class, is only used under the
        // buffer's lock.
        /// What waits for the reader.
        var queue = ChunkQueue()
        var end: Result<Void, any Error>?
        var reader: UnsafeContinuation<Data?, any Error>?
        var writer: UnsafeContinuation<Void, Never>?
        var isPaused = false
        var producer: Producer?
        var isCancelled = false
        /// Fails the body at its deadline; cancelled once the reader can get nothing but the end.
        var deadline: UInt64?
        /// The bytes the producer has appended so far, read or not.
        var received = 0
        /// The most bytes that may wait unread, in memory and on disk, for a producer that
        /// cannot pause; see ``BodyBuffer/limitUnread(to:)``.
        var maximumUnread: Int? = ResponseBody.defaultMaximumUnreadSize
        /// The most bytes the producer may append, and the error that ends the body past them
        /// (`nil`: the body ends after them); see ``BodyBuffer/limit(to:failingWith:)``.
        var limit: (bytes: Int, error: (any Error)?)?

        /// Whether nothing but the end can reach the reader: the body failed, or it ended and
        /// nothing waits. Until then a deadline or a cancellation can still fail it, even after
        /// the producer has finished, when what it sent waits on disk.
        var isSettled: Bool {
            switch end {
            case nil: false
            case .failure: true
            case .success: queue.isEmpty
            }
        }

        /// Stops the deadline: the body is settled.
        mutating func endDeadline() {
            if let deadline {
                Deadline.cancel(deadline)
                self.deadline = nil
            }
        }

        /// The next chunk that waits, if any; the deadline ends with the last one of a body that
        /// has ended.
        mutating func take() throws -> Data? {
            defer {
                if isSettled {
                    endDeadline()
                }
            }
            return try queue.take()
        }
    }

    let state: Locked<State>
    let policy: Policy

    /// Creates an empty buffer.
    package init(policy: Policy = .pausing) {
        self.policy = policy
        self.state = Locked(State())
    }

    /// Creates a buffer that holds `data` and is finished.
    package convenience init(finishedWith data: Data) {
        self.init()
        state.withLock { state in
            if !data.isEmpty {
                state.queue.append(data)
                state.received = data.count
            }
            state.end = .success(())
        }
    }

    /// Sets what the buffer tells the producer; a buffer cancelled before this cancels the
    /// producer at once.
    package func attach(_ producer: Producer) {
        let cancelled = state.withLock { state in
            state.producer = producer
            return state.isCancelled
        }
        if cancelled {
            producer.cancel()
        }
    }

    /// Adds a chunk for the reader; ignored once the buffer has ended. A chunk that passes the
    /// limit set with ``limit(to:failingWith:)`` ends the body and stops the producer.
    package func append(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        enum Step {
            case none
            case deliver(UnsafeContinuation<Data?, any Error>, Data)
            case pause(Producer)
            case fail(any Error)
        }
        var isLast = false  // the last chunk the limit lets in: then the body ends
        var producer: Producer?
        let step: Step = state.withLock { state in
            guard state.end == nil else { return .none }
            var chunk = chunk
            if let limit = state.limit, state.received + chunk.count > limit.bytes {
                if let error = limit.error {
                    return .fail(error)
                }
                // Nothing, for a body past a limit set after it passed, which `limit(to:failingWith:)`
                // is about to end.
                chunk = chunk.prefix(max(0, limit.bytes - state.received))
                (isLast, producer) = (true, state.producer)
                guard !chunk.isEmpty else { return .none }
            }
            state.received += chunk.count
            if let reader = state.reader {
                state.reader = nil
                return .deliver(reader, chunk)
            }
            if !policy.canPause, let maximum = state.maximumUnread, state.queue.count + chunk.count > maximum {
                return .fail(LimitError.unreadTooLarge(limit: maximum))
            }
            if policy.canPause {
                state.queue.append(chunk)
            } else {
                do {
                    try state.queue.append(chunk, spillingPast: policy.pauseAbove)
                } catch {
                    return .fail(error)
                }
            }
            if policy.canPause, state.queue.bytesInMemory > policy.pauseAbove, !state.isPaused,
                let producer = state.producer
            {
                state.isPaused = true
                return .pause(producer)
            }
            return .none
        }
        switch step {
        case .none: break
        case .deliver(let reader, let chunk): reader.resume(returning: chunk)
        case .pause(let producer): producer.pause()
        case .fail(let error):
            cancel(with: error)
            return
        }
        if isLast {
            finish()
            producer?.cancel()
        }
    }

    /// Ends the body: the reader gets what waits, then the end or `error`. Later calls are ignored.
    package func finish(throwing error: (any Error)? = nil) {
        let wake: (UnsafeContinuation<Data?, any Error>?, UnsafeContinuation<Void, Never>?) = state.withLock { state in
            guard state.end == nil else { return (nil, nil) }
            state.end = error.map { .failure($0) } ?? .success(())
            state.producer = nil
            if state.isSettled {
                state.endDeadline()
            }
            defer { (state.reader, state.writer) = (nil, nil) }
            return (state.reader, state.writer)
        }
        if let reader = wake.0 {
            if let error {
                reader.resume(throwing: error)
            } else {
                reader.resume(returning: nil)
            }
        }
        wake.1?.resume()
    }

    /// Fails the body with `error` at once, dropping what waits, and stops the producer; a body
    /// that ended with chunks still unread fails in their place.
    package func cancel(with error: any Error) {
        let producer: Producer? = state.withLock { state in
            state.isCancelled = true
            guard !state.isSettled else { return nil }
            state.queue.removeAll()
            if state.end != nil {
                state.end = .failure(error)
                state.endDeadline()
            }
            return state.producer
        }
        finish(throwing: error)
        producer?.cancel()
    }

    /// Whether the body has ended, with its last chunk taken or not.
    package var hasEnded: Bool {
        state.withLock { $0.end != nil }
    }

    /// The next chunk, or `nil` at the end; throws what ended the body. Cancelling the calling
    /// task cancels a body still arriving with `URLError(.cancelled)`, whether chunks wait or
    /// not: a reader whose caller has returned (a deadline's work, say) stops at once, rather
    /// than taking what a producer that cannot pause adds for as long as it sends. What waits of
    /// a body that has ended is still read.
    package func next() async throws -> Data? {
        if Task.isCancelled, !hasEnded {
            cancel(with: URLError(.cancelled))
        }
        enum Step { case chunk(Data, resume: Producer?), end(Result<Void, any Error>), wait }
        let step: Step = try state.withLock { state in
            if let chunk = try state.take() {
                return .chunk(chunk, resume: resumingProducer(&state))
            }
            if let end = state.end {
                return .end(end)
            }
            return .wait
        }
        switch step {
        case .chunk(let chunk, let producer):
            producer?.resume()
            return chunk
        case .end(let end):
            try end.get()
            return nil
        case .wait:
            return try await waitForChunk()
        }
    }

    private func waitForChunk() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (reader: UnsafeContinuation<Data?, any Error>) in
                let step: Result<Data?, any Error>? = state.withLock { state in
                    do {
                        if let chunk = try state.take() {
                            return .success(chunk)
                        }
                    } catch {
                        return .failure(error)
                    }
                    if let end = state.end {
                        return end.map { nil }
                    }
                    state.reader = reader
                    return nil
                }
                if let step {
                    reader.resume(with: step)
                }
            }
        } onCancel: {
            cancel(with: URLError(.cancelled))
        }
    }

    /// Returns when the producer may append another chunk without passing the pause mark, or
    /// when the body has ended: a producer that pulls from a sequence waits here.
    package func writable() async {
        await withUnsafeContinuation { (writer: UnsafeContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.end == nil, state.queue.bytesInMemory > policy.pauseAbove else { return true }
                state.writer = writer
                return false
            }
            if ready {
                writer.resume()
            }
        }
    }

    /// The producer to resume, and the waiting writer woken, once the reader has taken enough.
    private func resumingProducer(_ state: inout State) -> Producer? {
        guard state.queue.bytesInMemory <= policy.pauseAbove / 2 else { return nil }
        if let writer = state.writer {
            state.writer = nil
            writer.resume()
        }
        guard state.isPaused else { return nil }
        state.isPaused = false
        return state.producer
    }
}
