import Foundation

/// Something that sends HTTP requests: the seam between Kilo and the network.
///
/// A transport's one requirement, ``stream(_:)``, returns the status and headers as soon as they
/// arrive, and the body as a ``ResponseBody`` that arrives as it is read.
/// ``stream(_:consuming:)`` applies a ``ResponseConsumption``'s limits to that body as soon as
/// the head arrives, and ``send(_:consuming:)`` reads the body as it says. ``URLSessionTransport``
/// sends requests with `URLSession`; ``FakeTransport`` answers them in memory, for tests. Write
/// your own to add behaviour around another transport, such as logging:
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

    /// Sends a request that will be read as `consumption` says, and returns the response's
    /// status and headers with its body as it arrives, its limits set.
    ///
    /// The default sends with ``stream(_:)`` and sets the limits once the head is returned. A
    /// transport that can do better implements it: URLSessionTransport sets them before the
    /// first byte of the body can arrive, and a decorator passes `consumption` on, and may read
    /// a body that will be collected whole before it judges an attempt.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - consumption: How the response will be read; its deadline is the caller's to keep.
    /// - Returns: The response, its body still to be read.
    /// - Throws: What ``stream(_:)`` throws.
    func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
}

extension Transport {
    /// Sends with ``stream(_:)``, then sets the limits of `consumption` on the body.
    public func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
    {
        let response = try await stream(request)
        response.body.buffer.apply(consumption, isSuccess: response.isSuccess)
        return response
    }

    /// Sends a request and returns the whole response, whatever its status code, its body read
    /// as `consumption` says: into memory or a file, within its limits, the whole exchange by
    /// its deadline; progress is reported to the request's observer as the body arrives.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - consumption: How to read the response.
    /// - Returns: The response, with an empty body when it went to a file.
    /// - Throws: What ``stream(_:)`` throws, the transfer's `URLError`, ``LimitError`` for a body
    ///   over its limit or a request past its deadline, ``RequestError/invalidTimeout(_:)`` for a
    ///   deadline that is not positive, or the file system's error if the file cannot be written.
    public func send(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> TransportResponse
    {
        try consumption.validate()
        return try await Deadline.run(consumption.deadline) { seal in
            try await stream(request, consuming: consumption)
                .collect(consumption, progress: request.progress, sent: request.bodySize, sealing: seal)
        }
    }

    /// Sends a request and returns the whole response, its body in memory, with no limits.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response.
    /// - Throws: What ``send(_:consuming:)`` throws.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, consuming: .memory())
    }
}
