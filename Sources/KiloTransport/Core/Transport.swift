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
}
