/// A ``Transport`` that lets a ``RequestInterceptor`` adapt each request and ask for retries.
public struct InterceptingTransport: Transport {
    /// The transport that sends each attempt.
    public let transport: any Transport
    /// The interceptor.
    public let interceptor: any RequestInterceptor
    /// The most attempts in all, however often the interceptor asks for another.
    public let maximumAttempts: Int

    /// Creates an intercepting transport.
    ///
    /// - Parameters:
    ///   - transport: The transport that sends each attempt.
    ///   - interceptor: Adapts requests and decides on retries.
    ///   - maximumAttempts: The most attempts in all, the first included; 2 lets an interceptor
    ///     refresh a token once.
    public init(_ transport: any Transport, interceptor: any RequestInterceptor, maximumAttempts: Int = 2) {
        self.transport = transport
        self.interceptor = interceptor
        self.maximumAttempts = maximumAttempts
    }

    /// Adapts and sends a request, and again while the interceptor asks, attempts remain and the
    /// calling task is not cancelled; the interceptor judges a 2xx response before its body is
    /// read, and another by its status, headers and the first MiB of its body (see Docs/Reliability.md).
    ///
    /// On Linux, when the transport sends with a URL session that has been invalidated meanwhile
    /// (`finishTasksAndInvalidate()`, `invalidateAndCancel()`), on which another attempt would
    /// trap, the last attempt's outcome stands. Apple's URLSession offers no way to ask, and
    /// raises an exception on a task made in an invalidated session: there, stop sending with
    /// the transport before you invalidate its session.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The last attempt's response.
    /// - Throws: What ``RequestInterceptor/adapt(_:)`` throws, or the last attempt's error.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try await stream(request, consuming: .stream())
    }

    /// Adapts and sends a request to be read as `consumption` says, as ``stream(_:)`` does,
    /// except that a success whose body is collected in memory is read before the interceptor
    /// judges it.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - consumption: How the response will be read.
    /// - Returns: The last attempt's response.
    /// - Throws: What ``RequestInterceptor/adapt(_:)`` throws, or the last attempt's error.
    public func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
    {
        var attempt = 1
        var last: Attempt?
        while true {
            if attempt > 1 {
                request.progress?.restart()
            }
            let adapted = try await interceptor.adapt(request)
            // A session invalidated meanwhile would trap on another attempt: the last one stands.
            if let last {
                if transport.sendsWithInvalidatedSession {
                    return try last.response.get()
                }
                last.discard()
            }
            let attempted = await Attempt(
                try await transport.stream(adapted, consuming: consumption),
                for: adapted,
                consuming: consumption
            )
            let outcome = attempted.outcome
            // Cancellation is checked again after `shouldRetry`, which may take its time (a token
            // refresh): a task cancelled meanwhile sends nothing more.
            guard attempt < maximumAttempts, !Task.isCancelled,
                await interceptor.shouldRetry(adapted, after: outcome, attempt: attempt),
                !Task.isCancelled
            else {
                return try attempted.response.get()
            }
            attempt += 1
            last = attempted
        }
    }
}

extension Transport {
    /// Wraps this transport in one that lets `interceptor` adapt requests and ask for retries.
    ///
    /// - Parameters:
    ///   - interceptor: Adapts requests and decides on retries.
    ///   - maximumAttempts: The most attempts in all.
    /// - Returns: The intercepting transport.
    public func intercepted(by interceptor: any RequestInterceptor, maximumAttempts: Int = 2) -> InterceptingTransport {
        InterceptingTransport(self, interceptor: interceptor, maximumAttempts: maximumAttempts)
    }
}
