import Foundation

/// What ends a body early: a size it may not pass, a bound on what waits for its reader, and a
/// deadline.
extension BodyBuffer {
    /// Ends the body once the producer has appended `bytes`, read or not, and stops the producer:
    /// with `error`, a chunk that passes the limit fails the body at once, dropping what waits;
    /// with `nil`, the body ends after its first `bytes`. Bytes appended before the call count.
    ///
    /// A reader that stops at a limit thus stops the transfer as soon as the producer passes it,
    /// not once it has caught up: Linux's URLSession, which cannot pause, decodes a compressed
    /// "bomb" far faster than anyone reads it, and would otherwise fill the spill file.
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

    /// Fails the body with ``LimitError/deadlineExceeded(after:)`` once `seconds` have passed,
    /// unless the reader has had all of it by then; `nil` sets no deadline.
    package func expire(after seconds: TimeInterval?) {
        guard let seconds else { return }
        let timer = Task { [weak self] in
            do {
                try await Task.sleep(nanoseconds: Deadline.nanoseconds(seconds))
            } catch {
                return  // cancelled: the body ended first
            }
            self?.cancel(with: LimitError.deadlineExceeded(after: seconds))
        }
        let ended = state.withLock { state in
            state.deadline = timer
            return state.isSettled
        }
        if ended {
            timer.cancel()
        }
    }
}
