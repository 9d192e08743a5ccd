import Foundation

/// Runs work that must end by a deadline, however long its steps wait: a server that drips one
/// byte at a time resets an idle timeout, not this one.
package enum Deadline {
    /// Runs `operation`, cancelling it and throwing ``LimitError/deadlineExceeded(after:)`` once
    /// `seconds` have passed, or runs it as it is for `nil`.
    ///
    /// The operation runs in a task of its own, begun in the caller's thread where it can be,
    /// which one timer shared by every deadline in flight cancels when its time comes: a
    /// deadline that is not reached costs a lock and a dictionary entry, and holds nothing once
    /// the operation ends, however long the deadline.
    ///
    /// - Throws: ``LimitError/deadlineExceeded(after:)`` when the deadline passed before the
    ///   operation ended; `URLError(.cancelled)` for a `CancellationError`; otherwise what
    ///   `operation` throws.
    package static func run<T: Sendable>(
        _ seconds: TimeInterval?,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let seconds else { return try await operation() }
        let end = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds(seconds)))
        let work = start(operation)
        let hasExpired = Locked(false)
        let entry = Timer.shared.add(at: end) {
            hasExpired.withLock { $0 = true }
            work.cancel()
        }
        let result: Result<T, any Error>
        do {
            result = .success(
                try await withTaskCancellationHandler {
                    try await work.value
                } onCancel: {
                    work.cancel()
                }
            )
        } catch {
            result = .failure(error)
        }
        Timer.shared.remove(entry)
        if hasExpired.withLock({ $0 }) {
            throw LimitError.deadlineExceeded(after: seconds)
        }
        do {
            return try result.get()
        } catch is CancellationError {
            throw URLError(.cancelled)
        }
    }

    /// A task running `operation`, begun in the caller's thread where the toolchain and the
    /// platform can: the operation then runs up to its first suspension with no hand-off to
    /// another thread. For a caller already cancelled, the task is cancelled before the operation
    /// begins, so that a transport sends nothing.
    private static func start<T: Sendable>(
        _ operation: @escaping @Sendable () async throws -> T
    ) -> Task<T, any Error> {
        let cancelled = Task.isCancelled
        #if compiler(>=6.2)
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                return Task.immediate {
                    if cancelled {
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                    return try await operation()
                }
            }
        #endif
        let work = Task { try await operation() }
        if cancelled {
            work.cancel()
        }
        return work
    }

    /// `seconds` in nanoseconds, within what a sleep can count.
    package static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        UInt64(max(0, min(seconds, TransportRequest.longestTimeout)) * 1_000_000_000)
    }

    /// The deadlines in flight, on one dispatch timer set for the earliest. The timer is set
    /// again only for a deadline earlier than the one it is set for, and when it fires.
    ///
    /// `@unchecked Sendable`: a dispatch source is thread-safe, though its protocol does not say
    /// so; the deadlines are only touched under their lock.
    private final class Timer: @unchecked Sendable {
        static let shared = Timer()

        private struct Entry {
            var time: DispatchTime
            var expire: @Sendable () -> Void
        }

        private struct Entries {
            var byID: [UInt64: Entry] = [:]
            var nextID: UInt64 = 0
            /// When the timer fires next, or `nil` when it is not set.
            var firing: DispatchTime?
        }

        private let entries = Locked(Entries())
        private let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "Kilo.Deadline"))

        private init() {
            timer.setEventHandler { [unowned self] in fire() }
            timer.resume()
        }

        /// Calls `expire` at `time`, unless the entry is removed first; returns the entry.
        func add(at time: DispatchTime, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
            entries.withLock { entries in
                let id = entries.nextID
                entries.nextID += 1
                entries.byID[id] = Entry(time: time, expire: expire)
                if entries.firing.map({ time < $0 }) ?? true {
                    entries.firing = time
                    timer.schedule(deadline: time, leeway: .milliseconds(10))
                }
                return id
            }
        }

        func remove(_ id: UInt64) {
            _ = entries.withLock { $0.byID.removeValue(forKey: id) }
        }

        /// Expires the entries whose time has come, and sets the timer for the next one.
        private func fire() {
            let now = DispatchTime.now()
            let due = entries.withLock { entries -> [Entry] in
                let due = entries.byID.filter { $0.value.time <= now }
                for id in due.keys {
                    entries.byID[id] = nil
                }
                entries.firing = entries.byID.values.lazy.map(\.time).min()
                if let next = entries.firing {
                    timer.schedule(deadline: next, leeway: .milliseconds(10))
                }
                return Array(due.values)
            }
            for entry in due {
                entry.expire()
            }
        }
    }
}
