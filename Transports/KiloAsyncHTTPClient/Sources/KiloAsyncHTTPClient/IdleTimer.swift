import Foundation
import Kilo
import NIOConcurrencyHelpers
import NIOCore

/// Fails a request with `URLError.timedOut` once no bytes have moved for an interval: the meaning
/// of ``TransportRequest/timeoutInterval``, as `URLSession` gives it.
///
/// Until a response head arrives, a request whose body is not streamed moves no bytes that the
/// transport can see, so the client's own deadline (``deadlineForResponseHead()``) times it out:
/// when it expires while the client is still trying to connect, the client reports why it could
/// not (a refused connection, an untrusted certificate), which cancelling would hide. A request
/// whose body is streamed runs as a child task beside a watchdog task (``run(_:)``). A response
/// body's reader, a task of the transport's own, is watched from an event loop
/// (``cancel(whenIdle:on:)``), which costs no task of its own.
final class IdleTimer: Sendable {
    /// How long a request may go without moving a byte.
    let interval: TimeAmount
    private let lastActivity: NIOLockedValueBox<NIODeadline>
    private let watch = NIOLockedValueBox(Watch())

    /// The watch that ``cancel(whenIdle:on:)`` keeps.
    private struct Watch {
        var cancel: (@Sendable () -> Void)?
        var check: Scheduled<Void>?
        var hasExpired = false
        var isStopped = false
    }

    /// The error of a request that went idle for the interval.
    static var timedOut: URLError {
        URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: TransportFailure.describe(.timedOut)])
    }

    /// Creates a timer whose interval starts now.
    ///
    /// - Parameter interval: How long the request may go without moving a byte.
    init(interval: TimeAmount) {
        self.interval = interval
        self.lastActivity = NIOLockedValueBox(.now())
    }

    /// The idle interval for a request's timeout, or `nil` for none: a timeout that is missing,
    /// not positive, or not finite leaves the client's own timeouts alone in charge.
    ///
    /// - Parameter timeoutInterval: The request's ``TransportRequest/timeoutInterval``.
    /// - Returns: The interval.
    static func interval(for timeoutInterval: TimeInterval?) -> TimeAmount? {
        guard let timeoutInterval, timeoutInterval > 0, timeoutInterval.isFinite else { return nil }
        return .nanoseconds(Int64(min(timeoutInterval, TransportRequest.longestTimeout) * 1e9))
    }

    /// Records that bytes moved, which restarts the interval.
    ///
    /// - Parameter delay: How much later than now the interval restarts.
    func touch(after delay: TimeAmount = .zero) {
        let now = NIODeadline.now() + delay
        lastActivity.withLockedValue { $0 = now }
    }

    /// The deadline for the client to deliver a response head to a request whose body is not
    /// streamed; a watchdog, where one runs, stands back until well after it.
    ///
    /// - Returns: The deadline, one interval from now.
    func deadlineForResponseHead() -> NIODeadline {
        touch(after: interval)
        return .now() + interval
    }

    /// Runs `operation`, and cancels it once it has been idle for the interval.
    ///
    /// - Parameter operation: The request.
    /// - Returns: What `operation` returns, even if it finishes just as the interval passes.
    /// - Throws: `URLError.timedOut` if the interval passed and `operation` then ended in
    ///   cancellation; otherwise what `operation` throws.
    func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await self.waitUntilIdle()
                return nil
            }
            defer { group.cancelAll() }
            if let value = try await group.next()! {
                return value
            }
            // Idle: cancel the request and see how it ends.
            group.cancelAll()
            do {
                if let value = try await group.next()! {
                    return value
                }
            } catch  where !TransportFailure.isCancellation(error) {
                throw error
            } catch {}
            throw Self.timedOut
        }
    }

    /// Calls `cancel` once the interval has passed since the last ``touch(after:)``, unless
    /// ``stopWatching()`` comes first; `eventLoop` checks when the interval may have passed.
    ///
    /// - Parameters:
    ///   - cancel: Stops the work, such as a task of the transport's own.
    ///   - eventLoop: Where the checks are scheduled.
    func cancel(whenIdle cancel: @escaping @Sendable () -> Void, on eventLoop: any EventLoop) {
        watch.withLockedValue { $0.cancel = cancel }
        scheduleCheck(on: eventLoop)
    }

    /// Whether the interval passed before ``stopWatching()``, so that the work was cancelled.
    var hasExpired: Bool {
        watch.withLockedValue { $0.hasExpired }
    }

    /// Stops the watch that ``cancel(whenIdle:on:)`` began; `cancel` is not called afterwards.
    func stopWatching() {
        let check = watch.withLockedValue { watch in
            defer {
                watch.isStopped = true
                watch.cancel = nil
                watch.check = nil
            }
            return watch.check
        }
        check?.cancel()
    }

    /// Schedules a check for when the interval will have passed since the last touch, or one
    /// interval from now if that is sooner (as ``waitUntilIdle()`` sleeps, and for its reason).
    private func scheduleCheck(on eventLoop: any EventLoop) {
        let deadline = min(lastActivity.withLockedValue { $0 }, .now()) + interval
        let check = eventLoop.scheduleTask(deadline: deadline) { self.check(on: eventLoop) }
        let isStopped = watch.withLockedValue { watch in
            watch.check = check
            return watch.isStopped
        }
        if isStopped {
            check.cancel()
        }
    }

    /// Cancels the work if the interval has passed since the last touch, or checks again later.
    private func check(on eventLoop: any EventLoop) {
        guard NIODeadline.now() >= lastActivity.withLockedValue({ $0 }) + interval else {
            scheduleCheck(on: eventLoop)
            return
        }
        let cancel = watch.withLockedValue { watch -> (@Sendable () -> Void)? in
            guard !watch.isStopped else { return nil }
            watch.hasExpired = true
            return watch.cancel
        }
        cancel?()
    }

    /// Returns once the interval has passed since the last ``touch(after:)``.
    ///
    /// It sleeps for at most one interval at a time: a ``touch(after:)`` that stood the watchdog
    /// back can be followed by one that brings the deadline nearer again (a response head that
    /// arrives before the client's deadline), and a longer sleep would let the request sit idle
    /// for up to twice the interval.
    private func waitUntilIdle() async throws {
        while true {
            let deadline = lastActivity.withLockedValue { $0 } + interval
            let now = NIODeadline.now()
            guard now < deadline else { return }
            try await Task.sleep(nanoseconds: UInt64(min(deadline - now, interval).nanoseconds))
        }
    }
}
