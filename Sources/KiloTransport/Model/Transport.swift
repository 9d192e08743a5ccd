import Foundation

/// Something that sends HTTP requests: the seam between Kilo and the network.
///
/// A transport's one requirement, ``stream(_:)``, returns the status and headers as soon as they
/// arrive, and the body as a ``ResponseBody`` that arrives as it is read. ``send(_:)`` collects
/// the body, within the request's limits. ``URLSessionTransport`` sends requests with
/// `URLSession`; ``FakeTransport`` answers them in memory, for tests. Write your own to add
/// behaviour around another transport, such as logging:
///
/// ```swift
/// struct LoggingTransport: Transport {
///     var wrapped: any Transport
///
///     func stream(_ request: TransportRequest) async throws -> StreamedResponse {
///         print(request.method, request.url)
///         let response = try await wrapped.stream(request)
///         print(response.statusCode)
///         return response
///     }
/// }
/// ```
///
/// A transport written for Kilo's earlier `send(_:)` requirement streams with two more lines:
///
/// ```swift
/// func stream(_ request: TransportRequest) async throws -> StreamedResponse {
///     StreamedResponse(try await send(request))
/// }
/// ```
public protocol Transport: Sendable {
    /// Sends a request and returns the response's status and headers, whatever the status code,
    /// with its body as it arrives.
    ///
    /// A response with a status outside 2xx is returned, not thrown. Cancelling the calling task
    /// before the response arrives cancels the request; afterwards, cancelling the reading task
    /// or dropping the body does.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, its body still to be read.
    /// - Throws: `URLError` when no response arrives (including `URLError.cancelled`), or
    ///   ``RequestError`` for a request that cannot be sent.
    func stream(_ request: TransportRequest) async throws -> StreamedResponse
}

extension Transport {
    /// Sends a request and returns the whole response, whatever its status code.
    ///
    /// The body is collected in memory, or written to the request's
    /// ``TransportRequest/responseBodyFile``, up to its ``TransportRequest/maximumBodySize``,
    /// and the whole exchange ends by its ``TransportRequest/deadline``; progress is reported to
    /// its ``TransportRequest/progress`` observer as the body arrives.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response.
    /// - Throws: What ``stream(_:)`` throws, the transfer's `URLError`, ``LimitError`` for a body
    ///   over its limit or a request past its deadline, or the file system's error if the
    ///   response body file cannot be written.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await Deadline.run(request.deadline) {
            try await TransportRequest.$collectsBody.withValue(request.responseBodyFile == nil) {
                try await stream(request)
            }.collect(for: request)
        }
    }
}
