import Foundation

/// When and how soon to send a failed request again.
///
/// The default policy makes at most three attempts, waits about 0.5 s, then 1 s (exponential
/// backoff, with jitter so that many clients do not retry in step), and retries only
///
/// - idempotent methods: GET, PUT, DELETE, HEAD and OPTIONS (a POST is retried only if you add
///   it to ``retriedMethods``);
/// - after a connection error or a timeout (see ``retriedErrorCodes``), or a 408, 429, 502, 503
///   or 504 response.
///
/// A `Retry-After` header (seconds or an HTTP date) sets the delay instead; if it asks for more
/// than ``maximumDelay``, the response is returned as it is.
///
/// Every function here is pure; ``RetryingTransport`` does the waiting.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts in all, the first included. `1` never retries.
    public var maximumAttempts: Int
    /// The delay before the second attempt, in seconds, before jitter.
    public var initialDelay: TimeInterval
    /// What each delay is multiplied by for the next attempt.
    public var multiplier: Double
    /// The longest delay, in seconds, whether from backoff or from `Retry-After`.
    ///
    /// `.infinity` honours any `Retry-After`; a delay is still never longer than
    /// ``longestDelay``.
    public var maximumDelay: TimeInterval
    /// The methods that may be retried.
    public var retriedMethods: Set<HTTPMethod>
    /// The response statuses that are retried.
    public var retriedStatusCodes: Set<Int>
    /// The `URLError` codes that are retried: failures to connect, lost connections and timeouts.
    public var retriedErrorCodes: Set<URLError.Code>

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumAttempts: The most attempts in all, the first included.
    ///   - initialDelay: The delay before the second attempt, in seconds.
    ///   - multiplier: What each delay is multiplied by for the next attempt.
    ///   - maximumDelay: The longest delay, in seconds.
    ///   - retriedMethods: The methods that may be retried; the idempotent ones by default.
    ///   - retriedStatusCodes: The statuses that are retried.
    ///   - retriedErrorCodes: The `URLError` codes that are retried.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        retriedMethods: Set<HTTPMethod> = [.get, .put, .delete, .head, .options],
        retriedStatusCodes: Set<Int> = [408, 429, 502, 503, 504],
        retriedErrorCodes: Set<URLError.Code> = [
            .timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
            .notConnectedToInternet,
        ]
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.retriedMethods = retriedMethods
        self.retriedStatusCodes = retriedStatusCodes
        self.retriedErrorCodes = retriedErrorCodes
    }

    /// The default policy.
    public static let `default` = RetryPolicy()

    /// The longest delay ``delay(before:isSentAgainAfter:attempt:jitter:now:)`` returns, about 31
    /// years, whatever ``maximumDelay`` allows: a longer one means forever in practice, and
    /// `Task.sleep(for:)` traps on one of more than `Int64.max` seconds (a `Retry-After` of
    /// `9223372036854775807`, say).
    public static let longestDelay: TimeInterval = 1_000_000_000

    /// How long to wait before sending `request` again, or `nil` to stop and return `outcome`.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - outcome: What the attempt gave.
    ///   - attempt: The number of the attempt that gave it, from 1.
    ///   - jitter: A random number in `0..<1`; the backoff delay is scaled to between half and
    ///     all of itself by it (a value outside that range is clamped, and NaN counts as 0).
    ///   - now: The current date, to read a `Retry-After` date against.
    /// - Returns: The delay in seconds, from 0 to ``longestDelay``, or `nil`. A ``maximumDelay``
    ///   that is negative or NaN, or a ``multiplier`` that makes the backoff negative, means no
    ///   wait.
    public func delay(
        before request: TransportRequest,
        isSentAgainAfter outcome: Result<TransportResponse, any Error>,
        attempt: Int,
        jitter: Double,
        now: Date = Date()
    ) -> TimeInterval? {
        guard attempt < maximumAttempts, retriedMethods.contains(request.method) else { return nil }
        switch outcome {
        case .success(let response):
            guard retriedStatusCodes.contains(response.statusCode) else { return nil }
            if let header = response.headers["Retry-After"], let wait = Self.retryAfter(header, now: now) {
                return wait <= maximumDelay ? min(wait, Self.longestDelay) : nil
            }
        case .failure(let error):
            guard let error = error as? URLError, retriedErrorCodes.contains(error.code) else { return nil }
        }
        // With no initial delay the backoff stays 0: after 1,024 doublings the product would be
        // 0 × ∞, NaN, which `min` turns into the maximum delay.
        let growth = initialDelay > 0 ? initialDelay * pow(multiplier, Double(attempt - 1)) : 0
        let backoff = min(maximumDelay, Self.longestDelay, growth)
        let scale = 0.5 + 0.5 * (jitter >= 0 ? min(jitter, 1) : 0)  // a NaN jitter counts as 0
        let delay = backoff * scale
        // A maximum delay that is negative or NaN, or a negative multiplier, asks for no wait: a
        // negative infinity or a NaN here would trap in `Task.sleep(for:)`.
        return delay > 0 ? delay : 0
    }

    /// The delay a `Retry-After` value asks for, in seconds.
    ///
    /// - Parameters:
    ///   - value: Whole seconds (`120`, however many digits) or an HTTP date in any of the three
    ///     forms RFC 9110 asks recipients to read (`Sun, 06 Nov 1994 08:49:37 GMT`,
    ///     `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`).
    ///   - now: The current date.
    /// - Returns: The delay, never negative, or `nil` when the value is none of these forms.
    public static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        // RFC 9110's `delay-seconds` is `1*DIGIT`: no sign. More digits than an `Int` holds are
        // still a number of seconds, only a very large one: longer than any maximum.
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return Int(trimmed).map(TimeInterval.init) ?? Double(trimmed)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed.replacingOccurrences(of: "  ", with: " ")) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }
}
