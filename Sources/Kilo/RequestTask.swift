/// A request started by one of ``WebServiceProxy``'s callback methods.
///
/// Keep it to cancel the request; discard it otherwise. Cancelling stops the transfer, and the
/// result handler is then called exactly once, with `URLError(.cancelled)`, unless the request
/// had already finished.
public final class RequestTask: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Cancels the request.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool {
        task.isCancelled
    }
}
