/// A transport that reports the end of a request from a callback of its own, without a Swift
/// task: Kilo's callback methods use it, when the transport has it, to save a thread hand-off.
///
/// ``URLSessionTransport`` is one. Its completion may run on a thread that the transport needs
/// for other requests (on Linux, the session's work queue), so unless
/// ``completionMayTakeTime`` says otherwise, the completion must return at once, and must not
/// call into the transport or its session there: move any real work, such as decoding, to a
/// queue of your own.
package protocol CallbackTransport: Transport {
    /// Whether `completion` runs where it may take its time, such as decoding the response: on a
    /// queue that only finishes requests, as a caller's session's delegate queue does on Apple
    /// platforms, and not on the main thread. Kilo then maps the response there, before it hands
    /// the result to the callback queue, as code that decodes in a completion handler does.
    var completionMayTakeTime: Bool { get }

    /// Starts sending a request, and calls `completion` exactly once with the response,
    /// whatever its status code, or with the error that ``Transport/send(_:)`` would throw.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - completion: Receives the outcome; cancelling the returned task makes it
    ///     `URLError(.cancelled)` unless the request has finished.
    /// - Returns: The started request, to cancel it.
    func start(
        _ request: TransportRequest,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportTask
}
