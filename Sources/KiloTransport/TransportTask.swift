/// A request that a ``Transport`` started with ``Transport/start(_:completion:)``.
///
/// Keep it to cancel the request; discard it otherwise.
public struct TransportTask: Sendable {
    private let cancellation: @Sendable () -> Void

    /// Creates a task that `cancel` cancels.
    ///
    /// - Parameter cancel: Stops the request, so that it completes with `URLError(.cancelled)`
    ///   unless it has finished already. It may be called more than once, from any thread.
    public init(cancel: @escaping @Sendable () -> Void) {
        cancellation = cancel
    }

    /// Cancels the request; it then completes with `URLError(.cancelled)`, unless it had
    /// already finished.
    public func cancel() {
        cancellation()
    }
}
