/// Adapts requests before they are sent, and decides whether a failed one is sent again.
///
/// Use it for what needs the outcome of a request or asynchronous work, such as an access
/// token that expires. An interceptor works through an ``InterceptingTransport``, so the
/// callback and `async` APIs both use it:
///
/// ```swift
/// struct BearerInterceptor: RequestInterceptor {
///     let tokens: TokenStore   // an actor that fetches a token once for many requests
///
///     func adapt(_ request: TransportRequest) async throws -> TransportRequest {
///         var request = request
///         request.headers["Authorization"] = "Bearer \(try await tokens.current())"
///         return request
///     }
///
///     func shouldRetry(_ request: TransportRequest, after outcome: Result<TransportResponse, any Error>,
///                      attempt: Int) async -> Bool {
///         guard case .success(let response) = outcome, response.statusCode == 401,
///               let sent = request.headers["Authorization"] else { return false }
///         // Refresh on the next adapt, unless another request has already replaced this token.
///         await tokens.invalidate(String(sent.dropFirst("Bearer ".count)))
///         return true
///     }
/// }
///
/// let transport = URLSessionTransport(configuration: .default).intercepted(by: BearerInterceptor(tokens: tokens))
/// ```
///
/// `Docs/Reliability.md` shows the `TokenStore`: an actor's method lets other calls in while it
/// awaits, so one that simply fetches a missing token signs in once per request that is waiting.
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
