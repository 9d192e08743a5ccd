import Foundation

/// A ``Transport`` that sends a request again, as a ``RetryPolicy`` says, when it fails.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .default).retrying(.default)
/// let proxy = WebServiceProxy(baseURL: baseURL, transport: transport)
/// ```
///
/// Cancelling the calling task stops the transfer and any pending retry: the wait throws
/// `CancellationError`, which ``WebServiceProxy`` reports as `URLError(.cancelled)`.
public struct RetryingTransport: Transport {
    /// The transport that sends each attempt.
    public let transport: any Transport
    /// When and how soon to retry.
    public let policy: RetryPolicy

    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private let random: @Sendable () -> Double

    /// Creates a retrying transport.
    ///
    /// - Parameters:
    ///   - transport: The transport that sends each attempt.
    ///   - policy: When and how soon to retry.
    ///   - sleep: Waits the given number of seconds; tests may pass a function that records the
    ///     delays and returns at once. It must throw when the task is cancelled.
    ///   - random: Returns a number in `0..<1` for jitter.
    public init(
        _ transport: any Transport,
        policy: RetryPolicy = .default,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Self.sleep(seconds: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.transport = transport
        self.policy = policy
        self.sleep = sleep
        self.random = random
    }

    /// Sends a request, and again while the policy says so, until a response's body starts to
    /// be delivered: the policy judges a 2xx response before its body is read, and another by
    /// its status, headers and the first MiB of its body (see Docs/Reliability.md).
    ///
    /// On Linux, when the transport sends with a URL session that has been invalidated meanwhile
    /// (`finishTasksAndInvalidate()`, `invalidateAndCancel()`), on which another attempt would
    /// trap, the last attempt's outcome stands. Apple's URLSession offers no way to ask, and
    /// raises an exception on a task made in an invalidated session: there, stop sending with
    /// the transport before you invalidate its session.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The last attempt's response.
    /// - Throws: The last attempt's error, or `CancellationError` if cancelled while waiting.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try await stream(request, consuming: .stream())
    }

    /// Sends a request to be read as `consumption` says, and again while the policy says so: as
    /// ``stream(_:)``, except that a success whose body is collected in memory is read first,
    /// so that a connection lost mid-body can be retried.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - consumption: How the response will be read.
    /// - Returns: The last attempt's response.
    /// - Throws: The last attempt's error, or `CancellationError` if cancelled while waiting.
    public func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
    {
        var attempt = 1
        while true {
            if attempt > 1 {
                request.progress?.restart()
            }
            let attempted = await Attempt(
                try await transport.stream(request, consuming: consumption),
                for: request,
                consuming: consumption
            )
            let outcome = attempted.outcome
            guard !Task.isCancelled,
                let delay = policy.delay(before: request, isSentAgainAfter: outcome, attempt: attempt, jitter: random())
            else {
                return try attempted.response.get()
            }
            do {
                try await sleep(delay)
            } catch {
                attempted.discard()
                throw error
            }
            // A session invalidated meanwhile would trap on another attempt: the last one stands.
            guard !transport.sendsWithInvalidatedSession else {
                return try attempted.response.get()
            }
            attempted.discard()
            attempt += 1
        }
    }

    /// Waits `seconds`: with `Task.sleep(for:)` where the platform has it, and elsewhere (before
    /// macOS 13, iOS 16, tvOS 16 and watchOS 9, which the package still supports) with
    /// `Task.sleep(nanoseconds:)`, the delay clamped to what a `UInt64` of nanoseconds holds.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    @usableFromInline
    static func sleep(seconds: TimeInterval) async throws {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
            try await Task.sleep(for: .seconds(seconds))
        } else {
            let nanoseconds = seconds > 0 ? min(seconds, RetryPolicy.longestDelay) * 1_000_000_000 : 0
            try await Task.sleep(nanoseconds: UInt64(nanoseconds))
        }
    }
}

extension Transport {
    /// Wraps this transport in one that retries failed requests.
    ///
    /// - Parameter policy: When and how soon to retry.
    /// - Returns: The retrying transport.
    public func retrying(_ policy: RetryPolicy = .default) -> RetryingTransport {
        RetryingTransport(self, policy: policy)
    }
}

extension Result where Failure == any Error {
    /// Captures the outcome of an `async` throwing function.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
