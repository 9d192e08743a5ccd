import Foundation

/// When an event stream reconnects, by the rules of a browser's `EventSource`.
///
/// Opt in with ``StreamFormat/serverSentEvents(reconnecting:)`` or
/// ``StreamFormat/serverSentEvents(of:terminator:undecodableEvents:reconnecting:)``:
///
/// ```swift
/// let events = try await proxy.withLimits { $0.deadline = nil }   // an endless stream
///     .stream(.get, path: "events", as: .serverSentEvents(reconnecting: EventStreamReconnection()))
/// ```
///
/// When the response ends, or its connection is lost (a `URLError`), the stream waits the
/// reconnection time (the server's latest `retry` field, at least half a second, as Firefox
/// clamps it, or ``delay`` until it sends one; after a reconnection that brought no event, at
/// least 1 second and doubling each time, up to a minute or the reconnection time when that is
/// longer) and
/// sends the same request again, with a `Last-Event-ID` field holding the last event ID the
/// server gave, if any, so that the server can resume where the last connection stopped (an ID
/// with a control character, which no header field can carry, is not sent; an `id` over 4 KiB was
/// ignored when it came, so the one before it is sent). An event the connection ended inside is
/// dropped, as `EventSource` drops it.
///
/// As `EventSource`, it does not reconnect after a 204 No Content (the stream ends) or a status
/// outside 2xx (the stream throws ``WebServiceError``) or a response of another type
/// (``UnexpectedContentTypeError``); nor after the terminator of a decoded
/// stream, a ``StreamElementError``, a ``LimitError``, or cancellation. The first request is
/// not repeated: a failure to connect at all is thrown by the `stream` call.
public struct EventStreamReconnection: Sendable, Hashable {
    /// The seconds to wait before reconnecting until the server sends a `retry` field: 3 by
    /// default.
    public var delay: TimeInterval

    /// The most reconnections in a row that deliver no event, after which the stream ends with
    /// the last connection's error (or at its end); `nil`, the default, reconnects for as long as
    /// the stream is read, as `EventSource` does.
    public var maximumAttempts: Int?

    /// Creates a reconnection policy.
    ///
    /// - Parameters:
    ///   - delay: The seconds to wait before reconnecting until the server sends a `retry`
    ///     field.
    ///   - maximumAttempts: The most reconnections in a row that deliver no event, or `nil` for
    ///     no limit.
    public init(delay: TimeInterval = 3, maximumAttempts: Int? = nil) {
        self.delay = delay
        self.maximumAttempts = maximumAttempts
    }

    /// The reconnection time: the server's latest `retry` field, in milliseconds, but at least
    /// half a second, so that a server that asks for `retry: 0` and ends each response after an
    /// event is not asked again thousands of times a second; ``delay`` until it sends one.
    ///
    /// - Parameter milliseconds: The server's latest `retry`, if any.
    /// - Returns: The seconds to wait.
    func reconnectionTime(retry milliseconds: Int?) -> TimeInterval {
        guard let milliseconds else { return delay }
        return max(Double(milliseconds) / 1000, 0.5)
    }

    /// The seconds to wait before the `attempt`th reconnection in a row that brings no event:
    /// the reconnection time for the first, then twice as long each time, from 1 second up to a
    /// minute (or the reconnection time, when longer). A server that ends every response at once
    /// and asks for `retry: 0` is then not asked again hundreds of times a second, for as long as
    /// the stream is read, while one that answers each reconnection with events is never kept
    /// waiting longer than it asks.
    ///
    /// - Parameters:
    ///   - attempt: The reconnections in a row that brought no event, this one included.
    ///   - reconnectionTime: The server's latest `retry`, in seconds, or ``delay``.
    /// - Returns: The seconds to wait.
    static func wait(before attempt: Int, reconnectionTime: TimeInterval) -> TimeInterval {
        guard attempt > 1 else { return reconnectionTime }
        let doubled = max(reconnectionTime, 0.5) * pow(2, Double(min(attempt - 1, 16)))
        return min(doubled, max(reconnectionTime, 60))
    }
}
