import Foundation
import KiloTransport

/// A request started by one of ``WebServiceProxy``'s callback methods: monitor it, or cancel it.
///
/// Its ``state`` tells whether it is running, completed or cancelled, and its ``progress`` is a
/// Foundation `Progress` an app can bind to a progress view, fed by the transport as bytes move
/// (cancelling the `Progress` cancels the request). Cancelling stops the transfer, and the result
/// handler is then called exactly once, with `URLError(.cancelled)`, unless it had been called
/// already.
public final class RequestTask: Sendable {
    /// Where a request stands.
    public enum State: Sendable, Hashable {
        /// Sent, or being sent; its handler has not run.
        case running
        /// Its handler has run with its outcome, success or failure.
        case completed
        /// It was cancelled before its handler ran.
        case cancelled
    }

    private struct Status: Sendable {
        var state = State.running
        var isCancelled = false
        /// The Swift task that does the work, to cancel; `nil` until it has started.
        var work: Task<Void, Never>?
    }

    private let status = Locked(Status())

    /// The request's progress, in bytes sent and received: its total is the body to send plus
    /// the response's announced length (unknown, -1, until a response announces one).
    public let progress: Progress

    /// A task whose work starts later; see ``attach(_:)``.
    init() {
        progress = Progress(totalUnitCount: -1)
        progress.cancellationHandler = { [weak self] in self?.cancel() }
    }

    /// Attaches the Swift task that does the work; if the request was cancelled already, cancels
    /// it at once.
    func attach(_ task: Task<Void, Never>) {
        let cancelNow = status.withLock { status in
            status.work = task
            return status.isCancelled
        }
        if cancelNow {
            task.cancel()
        }
    }

    /// A progress observer that keeps ``progress`` current and passes each report on to
    /// `observer`, the caller's.
    func observer(reportingTo observer: ProgressObserver?) -> ProgressObserver {
        ProgressObserver { [progress] transfer in
            let expected = (transfer.expectedBytesToSend ?? 0) + (transfer.expectedBytesToReceive ?? -1)
            progress.totalUnitCount = transfer.expectedBytesToReceive == nil ? -1 : expected
            progress.completedUnitCount = transfer.bytesSent + transfer.bytesReceived
            observer?.report(transfer)
        }
    }

    /// The outcome for the handler, and the request's end: cancellation before the handler runs
    /// wins, unless the success is final (a download has replaced its destination).
    func complete<T>(with outcome: Result<T, any Error>, successIsFinal: Bool) -> Result<T, any Error> {
        let isCancelled = status.withLock { status in
            let wins = status.isCancelled && !(successIsFinal && (try? outcome.get()) != nil)
            status.state = wins ? .cancelled : .completed
            status.work = nil
            return wins
        }
        if !isCancelled, case .success = outcome, progress.totalUnitCount < 0 {
            progress.totalUnitCount = progress.completedUnitCount
        }
        return isCancelled ? .failure(URLError(.cancelled)) : outcome
    }

    /// Cancels the request, unless its handler has run; the handler then receives
    /// `URLError(.cancelled)`.
    public func cancel() {
        let work = status.withLock { status -> Task<Void, Never>? in
            guard !status.isCancelled, status.state == .running else { return nil }
            status.isCancelled = true
            return status.work
        }
        work?.cancel()
    }

    /// Whether ``cancel()`` was called before the handler ran.
    public var isCancelled: Bool {
        status.withLock { $0.isCancelled }
    }

    /// Whether the request is running, completed or cancelled.
    public var state: State {
        status.withLock { $0.state }
    }
}
