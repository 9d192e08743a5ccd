/// A request that a ``CallbackTransport`` started.
package struct TransportTask: Sendable {
    private let cancellation: @Sendable () -> Void

    /// Creates a task that `cancel` cancels.
    ///
    /// - Parameter cancel: Stops the request, so that it completes with `URLError(.cancelled)`
    ///   unless it has finished already. It may be called more than once, from any thread.
    package init(cancel: @escaping @Sendable () -> Void) {
        cancellation = cancel
    }

    /// Cancels the request; it then completes with `URLError(.cancelled)`, unless it had
    /// already finished.
    package func cancel() {
        cancellation()
    }
}
