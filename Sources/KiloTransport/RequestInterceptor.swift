/// Adapts requests before they are sent, and decides whether a failed one is sent again.
///
/// Use it for what needs the outcome of a request or asynchronous work, such as an access
/// token that expires. An interceptor works through an ``InterceptingTransport``, so the
/// callback and `async` APIs both use it:
///
/// ```swift
/// actor TokenInterceptor: RequestInterceptor {
///     private var token: String?
///
///     func adapt(_ request: TransportRequest) async throws -> TransportRequest {
///         var request = request
///         request.headers["Authorization"] = "Bearer \(try await currentToken())"
///         return request
///     }
///
///     func shouldRetry(_ request: TransportRequest, after outcome: Result<TransportResponse, any Error>,
///                      attempt: Int) async -> Bool {
///         guard case .success(let response) = outcome, response.statusCode == 401 else { return false }
///         token = nil          // refresh on the next adapt
///         return true
///     }
/// }
///
/// let transport = URLSessionTransport(configuration: .default).intercepted(by: TokenInterceptor())
/// ```
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send for one attempt. It runs before every attempt, retries
    /// included. The default returns the request unchanged.
    ///
    /// - Parameter request: The request as built, before any adaptation.
    /// - Returns: The request to send.
    /// - Throws: Any error, to fail the request without sending it.
    func adapt(_ request: TransportRequest) async throws -> TransportRequest

    /// Decides whether to send the request again after an attempt. The default says no.
    ///
    /// - Parameters:
    ///   - request: The adapted request that was sent.
    ///   - outcome: The attempt's response, whatever its status, or its error.
    ///   - attempt: The attempt's number, from 1.
    /// - Returns: `true` to adapt and send the request again.
    func shouldRetry(_ request: TransportRequest, after outcome: Result<TransportResponse, any Error>, attempt: Int)
        async -> Bool
}

extension RequestInterceptor {
    /// Returns the request unchanged.
    ///
    /// - Parameter request: The request.
    /// - Returns: `request`.
    /// - Throws: Nothing; a conforming type's own `adapt` may throw.
    public func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        request
    }

    /// Never retries.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - outcome: What the attempt gave.
    ///   - attempt: The attempt's number.
    /// - Returns: `false`.
    public func shouldRetry(
        _ request: TransportRequest,
        after outcome: Result<TransportResponse, any Error>,
        attempt: Int
    ) async -> Bool {
        false
    }
}
