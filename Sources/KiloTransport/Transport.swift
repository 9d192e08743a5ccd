import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that sends HTTP requests: the seam between Kilo and the network.
///
/// ``URLSessionTransport`` sends requests with `URLSession`; ``FakeTransport`` answers them in
/// memory, for tests. Write your own to add behaviour around another transport, such as
/// logging:
///
/// ```swift
/// struct LoggingTransport: Transport {
///     var wrapped: any Transport
///
///     func send(_ request: TransportRequest) async throws -> TransportResponse {
///         print(request.method, request.url)
///         let response = try await wrapped.send(request)
///         print(response.statusCode)
///         return response
///     }
/// }
/// ```
///
/// A transport only has to implement ``send(_:)``. Kilo's callback methods call
/// ``start(_:completion:)``, which by default runs ``send(_:)`` in a task; a transport that
/// can report completion without one (``URLSessionTransport`` does) implements it too, and
/// saves each callback request a hand-off between threads.
public protocol Transport: Sendable {
    /// Sends a request and returns the response, whatever its status code.
    ///
    /// A response with a status outside 2xx is returned, not thrown. Cancelling the calling task
    /// cancels the request.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response.
    /// - Throws: `URLError` when no response arrives (including `URLError.cancelled`), or
    ///   ``RequestError`` for a request that cannot be sent.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Starts sending a request, and calls `completion` exactly once with the response, whatever
    /// its status code, or with the error that ``send(_:)`` would throw.
    ///
    /// `completion` runs on a thread of the transport's choosing, perhaps one that it needs for
    /// other requests, so it must return quickly: move any real work, such as decoding the
    /// body, to a queue of your own.
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

extension Transport {
    /// Starts sending a request with ``send(_:)``, in a task.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - completion: Receives the outcome, on the task's thread.
    /// - Returns: The started request, to cancel it.
    public func start(
        _ request: TransportRequest,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportTask {
        let task = Task {
            do {
                completion(.success(try await send(request)))
            } catch is CancellationError {
                completion(.failure(URLError(.cancelled)))
            } catch {
                completion(.failure(error))
            }
        }
        return TransportTask { task.cancel() }
    }
}
