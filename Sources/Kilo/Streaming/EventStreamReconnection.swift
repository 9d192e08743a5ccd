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
/// reconnection time (the server's latest `retry` field, or ``delay`` until it sends one) and
/// sends the same request again, with a `Last-Event-ID` field holding the last event ID the
/// server gave, if any, so that the server can resume where the last connection stopped (an ID
/// no header field can carry, over 4 KiB or with a control character, is not sent). An event the
/// connection ended inside is dropped, as `EventSource` drops it.
///
/// As `EventSource`, it does not reconnect after a 204 No Content (the stream ends) or a status
/// outside 2xx (the stream throws ``WebServiceError``); nor after the terminator of a decoded
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
}
