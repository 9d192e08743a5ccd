import Foundation

/// What ends a body early: a size it may not pass, a bound on what waits for its reader, and a
/// deadline.
extension BodyBuffer {
    /// Ends the body once the producer has appended `bytes`, read or not, and stops the producer:
    /// with `error`, a chunk that passes the limit fails the body at once, dropping what waits;
    /// with `nil`, the body ends after its first `bytes`. Bytes appended before the call count: a
    /// body that has passed `bytes` already ends where it stands, and its reader may get more than
    /// `bytes` (``ResponseBody/prefix(_:)`` cuts them).
    ///
    /// A reader that stops at a limit thus stops the transfer as soon as the producer passes it,
    /// not once it has caught up: Linux's URLSession, which cannot pause, decodes a compressed
    /// "bomb" far faster than anyone reads it, and would otherwise fill the spill files.
    ///
    /// - Parameters:
    ///   - bytes: The most bytes the body may have.
    ///   - error: The error that ends a larger body, or `nil` to cut it short.
    package func limit(to bytes: Int, failingWith error: (any Error)?) {
        let passed: Producer?? = state.withLock { state in
            state.limit = (bytes, error)
            guard state.end == nil, state.received > bytes else { return .none }
            return .some(state.producer)
        }
        guard case .some(let producer) = passed else { return }
        if let error {
            cancel(with: error)
        } else {
            finish()
            producer?.cancel()
        }
    }

    /// Bounds what waits for a reader slower than a producer that cannot pause, in memory and on
    /// disk together: past `bytes`, the body fails with ``LimitError/unreadTooLarge(limit:)`` at
    /// once and the producer is stopped; `nil` sets no bound. Until this is called the bound is
    /// ``ResponseBody/defaultMaximumUnreadSize``. A producer that pauses never reaches it: the
    /// server is slowed down instead.
    ///
    /// - Parameter bytes: The most bytes that may wait unread, or `nil`.
    package func limitUnread(to bytes: Int?) {
        let passed: Bool = state.withLock { state in
            state.maximumUnread = bytes
            guard let bytes, !policy.canPause, state.end == nil else { return false }
            return state.queue.count > bytes
        }
        if passed, let bytes {
            cancel(with: LimitError.unreadTooLarge(limit: bytes))
        }
    }

    /// Sets the limits `consumption` puts on the body of a response whose status is a success or
    /// not, as soon as its head has arrived: the limits that reading it as `consumption` says
    /// sets again, set before anything reads it, so that a producer that cannot pause is stopped
    /// at them however far ahead of the reader it runs.
    ///
    /// - Parameters:
    ///   - consumption: How the response is read.
    ///   - isSuccess: Whether its status is in the 2xx range.
    package func apply(_ consumption: ResponseConsumption, isSuccess: Bool) {
        if !isSuccess, let errorBodyLimit = consumption.errorBodyLimit {
            limitUnread(to: nil)  // the prefix bounds it
            limit(to: errorBodyLimit, failingWith: nil)
            return
        }
        switch consumption.destination {
        case .memory(let bytes):
            limitUnread(to: nil)  // read as it comes, within its own limit
            if let bytes {
                limit(to: bytes, failingWith: LimitError.bodyTooLarge(limit: bytes))
            }
        case .file(_, let bytes):
            limitUnread(to: nil)  // what waits for the file is on disk either way
            if let bytes {
                limit(to: Int(clamping: bytes), failingWith: LimitError.fileTooLarge(limit: bytes))
            }
        case .stream(let maximumUnread):
            limitUnread(to: maximumUnread)
        }
    }

    /// Fails the body with ``LimitError/deadlineExceeded(after:)`` once `seconds` have passed,
    /// unless the reader has had all of it by then; `nil` sets no deadline.
    package func expire(after seconds: TimeInterval?) {
        guard let seconds else { return }
        let scheduled = Deadline.schedule(after: seconds) { [weak self] in
            self?.cancel(with: LimitError.deadlineExceeded(after: seconds))
        }
        let ended = state.withLock { state in
            state.deadline = scheduled
            return state.isSettled
        }
        if ended {
            Deadline.cancel(scheduled)
        }
    }
}
