/// One event of a server-sent event stream (`text/event-stream`), as a browser's `EventSource`
/// delivers it.
///
/// ``ServerSentEventParser`` makes these from a streamed response. For an event stream like
///
/// ```
/// event: update
/// id: 42
/// data: {"progress": 0.5}
///
/// ```
///
/// it delivers `ServerSentEvent(type: "update", data: #"{"progress": 0.5}"#, lastEventID: "42")`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: the value of its last `event` field, or `message` when it has none (or
    /// an empty one).
    public var type: String

    /// The event's data: the values of its `data` fields, joined with line feeds.
    public var data: String

    /// The stream's last event ID: the value of the latest `id` field, in this event or an
    /// earlier one; empty when there has been none, or when the latest was empty. An `id` that
    /// contains NUL, or is longer than 4 KiB, is ignored.
    ///
    /// Send it back in a `Last-Event-ID` header when reconnecting, so the server can resume.
    public var lastEventID: String

    /// The reconnection time, in milliseconds, set by a `retry` field in this event; `nil` when
    /// the event has none. ``ServerSentEventParser/reconnectionTime`` keeps the latest value for
    /// the whole stream, including from blocks that dispatch no event.
    public var retry: Int?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The event's type; `message` unless given.
    ///   - data: The event's data.
    ///   - lastEventID: The stream's last event ID; empty unless given.
    ///   - retry: The reconnection time, in milliseconds, set by this event; `nil` unless given.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Int? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}
