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
    /// The caller returns as soon as the deadline passes or it is cancelled, without waiting for
    /// the operation to end: a platform stuck in a transfer that ignores cancellation (Linux's
    /// URLSession reading a redirect's endless body) holds only its own task, which is
    /// cancelled and let go.
    ///
    /// - Throws: ``LimitError/deadlineExceeded(after:)`` when the deadline passed before the
    ///   operation ended; `URLError(.cancelled)` when the caller is cancelled first, or for a
    ///   `CancellationError`; otherwise what `operation` throws.
    package static func run<T: Sendable>(
        _ seconds: TimeInterval?,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await run(seconds, sealing: { _ in try await operation() })
    }

    /// What an operation calls just before a step that cannot be undone (a download replacing
    /// its file): `true` when the operation may take it, and its own end is then the caller's,
    /// whatever a deadline or a cancellation does meanwhile; `false` when the caller has been
    /// told of a deadline or a cancellation already, and the step must not be taken.
    package typealias Seal = @Sendable () -> Bool

    /// Runs `operation` as ``run(_:_:)`` does, giving it a ``Seal`` for a step that cannot be
    /// undone, so that a caller told of a deadline or a cancellation finds nothing done, and
    /// one told of success finds it all done.
    package static func run<T: Sendable>(
        _ seconds: TimeInterval?,
        sealing operation: @escaping @Sendable (_ seal: @escaping Seal) async throws -> T
    ) async throws -> T {
        guard let seconds else { return try await operation { !Task.isCancelled } }
        let end = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds(seconds)))
        let outcome = Outcome<T>()
        let work = start({ try await operation(outcome.seal) }, reportingTo: outcome)
        let entry = Timer.shared.add(at: end) {
            outcome.settle(.failure(LimitError.deadlineExceeded(after: seconds)), byOperation: false)
            // Off the timer's queue: cancellation handlers run in `cancel()`, and a slow one
            // must not hold up the next deadline.
            DispatchQueue.global().async { work.cancel() }
        }
        defer { Timer.shared.remove(entry) }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            outcome.settle(.failure(URLError(.cancelled)), byOperation: false)
            work.cancel()
        }
    }

    /// A task running `operation` that settles `outcome` with its end, begun in the caller's
    /// thread where the toolchain and the platform can: the operation then runs up to its first
    /// suspension with no hand-off to another thread. For a caller already cancelled, the task
    /// is cancelled before the operation begins, so that a transport sends nothing.
    private static func start<T: Sendable>(
        _ operation: @escaping @Sendable () async throws -> T,
        reportingTo outcome: Outcome<T>
    ) -> Task<Void, Never> {
        let cancelled = Task.isCancelled
        let run: @Sendable () async -> Void = {
            do {
                outcome.settle(.success(try await operation()), byOperation: true)
            } catch is CancellationError {
                outcome.settle(.failure(URLError(.cancelled)), byOperation: true)
            } catch {
                outcome.settle(.failure(error), byOperation: true)
            }
        }
        #if compiler(>=6.2)
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                return Task.immediate {
                    if cancelled {
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                    await run()
                }
            }
        #endif
        let work = Task { await run() }
        if cancelled {
            work.cancel()
        }
        return work
    }

    /// The first end of a deadline's race, whichever comes first: the operation's own, the
    /// deadline's or the caller's cancellation; and the caller waiting for it.
    private final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, any Error>?
            var waiter: UnsafeContinuation<T, any Error>?
            /// Whether only the operation can end the race now (see ``Deadline/Seal``).
            var isSealed = false
        }

        private let state = Locked(State())

        /// Ends the race with `result`, unless it has ended already, or it is sealed and the
        /// result is not the operation's.
        func settle(_ result: Result<T, any Error>, byOperation: Bool) {
            let waiter: UnsafeContinuation<T, any Error>? = state.withLock { state in
                guard state.result == nil, byOperation || !state.isSealed else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        /// Leaves the race's end to the operation alone, unless it has ended already.
        ///
        /// - Returns: Whether the operation's end is now the race's.
        @Sendable func seal() -> Bool {
            state.withLock { state in
                guard state.result == nil else { return false }
                state.isSealed = true
                return true
            }
        }

        /// The race's result, once it has one.
        func value() async throws -> T {
            try await withUnsafeThrowingContinuation { waiter in
                let result: Result<T, any Error>? = state.withLock { state in
                    if state.result == nil {
                        state.waiter = waiter
                    }
                    return state.result
                }
                if let result {
                    waiter.resume(with: result)
                }
            }
        }
    }

    /// Calls `expire` once `seconds` have passed, on the timer every deadline shares, unless
    /// ``cancel(_:)`` comes first: a deadline that holds nothing, not even a task.
    ///
    /// - Returns: What ``cancel(_:)`` takes.
    package static func schedule(after seconds: TimeInterval, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        Timer.shared.add(at: DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds(seconds))), expire)
    }

    /// Cancels a deadline that ``schedule(after:_:)`` set; nothing for one that has passed.
    package static func cancel(_ scheduled: UInt64) {
        Timer.shared.remove(scheduled)
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
