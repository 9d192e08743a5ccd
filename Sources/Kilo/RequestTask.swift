import Foundation
import KiloTransport

/// A request started by one of ``WebServiceProxy``'s callback methods.
///
/// Keep it to cancel the request; discard it otherwise. Cancelling stops the transfer, and the
/// result handler is then called exactly once, with `URLError(.cancelled)`, unless it had been
/// called already.
public final class RequestTask: Sendable {
    private struct State: Sendable {
        var isCancelled = false
        /// Whether the transport has reported the end of the request.
        var isCompleted = false
        /// The transport's request, or the Swift task that does the work, to cancel; `nil` until
        /// it has started.
        var work: TransportTask?
    }

    private let state: Locked<State>

    /// A task whose work starts later; see the `attach` methods.
    init() {
        state = Locked(State())
    }

    /// Attaches the Swift task that does the work; if the task was cancelled already, cancels it
    /// at once.
    func attach(_ task: Task<Void, Never>) {
        attach(TransportTask { task.cancel() })
    }

    /// Attaches the transport's request; if the task was cancelled already, cancels it at once.
    func attach(_ transportTask: TransportTask) {
        let cancelNow = state.withLock { state in
            state.work = transportTask
            return state.isCancelled
        }
        if cancelNow {
            transportTask.cancel()
        }
    }

    /// Records the transport's report that the request ended; `false` if one came already, so
    /// that a transport that reports twice cannot call the result handler twice.
    func claimCompletion() -> Bool {
        state.withLock { state in
            defer { state.isCompleted = true }
            return !state.isCompleted
        }
    }

    /// `outcome`, or `URLError(.cancelled)` without evaluating it if the request was cancelled:
    /// cancellation that comes before the result is mapped, or before it is delivered, wins.
    func unlessCancelled<T>(_ outcome: @autoclosure () -> Result<T, any Error>) -> Result<T, any Error> {
        isCancelled ? .failure(URLError(.cancelled)) : outcome()
    }

    /// Cancels the request.
    public func cancel() {
        let work = state.withLock { state -> TransportTask? in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            return state.work
        }
        work?.cancel()
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }
}
