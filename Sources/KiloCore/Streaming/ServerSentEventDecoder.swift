import Foundation

/// Decodes the data of each server-sent event in a streamed response as JSON, chunk by chunk:
/// for streams such as a chat model's answer, one JSON chunk per event, ended by a terminator
/// event such as `data: [DONE]`.
///
/// It parses events with a ``ServerSentEventParser``, so it follows the standard's rules, then
/// decodes each event's ``ServerSentEvent/data`` as a `Value`. The event whose data is exactly
/// the terminator ends the stream: it is not decoded, and the decoder ignores what follows.
///
/// ```swift
/// struct Chunk: Decodable { … }   // an OpenAI-style chat completion chunk
///
/// var decoder = ServerSentEventDecoder(Chunk.self, terminator: "[DONE]")
/// for try await data in body {            // an AsyncSequence of Data
///     try decoder.append(data) { chunk in print(chunk) }
///     if decoder.isTerminated { break }   // stop reading: the answer is complete
/// }
/// decoder.finish()
/// ```
///
/// When a call throws, the stream cannot be parsed further: discard the decoder.
public struct ServerSentEventDecoder<Value: Decodable>: Sendable {
    private var parser: ServerSentEventParser
    private let decoder: JSONDecoder

    /// The data of the event that ends the stream, such as `[DONE]`; `nil` when only the end of
    /// the response ends it.
    public let terminator: String?

    /// What the decoder does with an event whose data does not decode.
    public let undecodableEvents: UndecodableEventPolicy

    /// Whether the terminator event has arrived; the decoder ignores what follows it.
    public private(set) var isTerminated = false

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - decoder: The decoder for each event's data; Kilo's (``JSONCoding/makeDecoder()``,
    ///     which reads dates as milliseconds since 1970) unless given.
    ///   - terminator: The data of the event that ends the stream, such as `[DONE]`; none unless
    ///     given.
    ///   - undecodableEvents: What to do with an event whose data does not decode: ``UndecodableEventPolicy/fail``
    ///     unless given.
    ///   - maximumEventSize: The most bytes an event (its type, last event ID and data together),
    ///     or any one line, may hold; 1 MiB unless given. Must be at least 1.
    public init(
        _ type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONCoding.makeDecoder(),
        terminator: String? = nil,
        undecodableEvents: UndecodableEventPolicy = .fail,
        maximumEventSize: Int = 1 << 20
    ) {
        parser = ServerSentEventParser(maximumEventSize: maximumEventSize)
        self.decoder = decoder
        self.terminator = terminator
        self.undecodableEvents = undecodableEvents
    }

    /// The stream's last event ID, as of the last blank line; see ``ServerSentEventParser/lastEventID``.
    public var lastEventID: String {
        parser.lastEventID
    }

    /// The reconnection time, in milliseconds, that the stream's latest `retry` field set; `nil` if
    /// none has.
    public var reconnectionTime: Int? {
        parser.reconnectionTime
    }

    /// Parses the next chunk of the stream, and hands each event's decoded data to `handle`, until
    /// the terminator.
    ///
    /// - Parameters:
    ///   - chunk: The next bytes of the stream; ignored once ``isTerminated``.
    ///   - handle: Called with each event's value, in order.
    /// - Throws: ``StreamElementError/undecodableEvent(line:underlyingError:)`` for an event whose
    ///   data does not decode, under the ``UndecodableEventPolicy/fail`` policy;
    ///   ``StreamElementError/elementTooLong(limit:line:)`` for a line, or an event, longer than
    ///   the limit; or what `handle` throws. The values of the events before the one at fault
    ///   have been delivered.
    public mutating func append(_ chunk: Data, _ handle: (Value) throws -> Void) throws {
        guard !isTerminated else { return }
        let (decoder, terminator, skipsUndecodable) = (decoder, terminator, undecodableEvents == .skip)
        do {
            try parser.parse(chunk) { event, line in
                if let terminator, event.data == terminator {
                    throw Terminated()
                }
                let value: Value
                do {
                    value = try decoder.decode(Value.self, from: Data(event.data.utf8))
                } catch {
                    if skipsUndecodable { return }
                    throw StreamElementError.undecodableEvent(line: line, underlyingError: error)
                }
                try handle(value)
            }
        } catch is Terminated {
            isTerminated = true
        }
    }

    /// Ends the stream, dropping the event it ended inside, if any; see
    /// ``ServerSentEventParser/finish()``.
    ///
    /// - Returns: Whether anything before the terminator was dropped: a sign that the stream was
    ///   cut. Always `false` once ``isTerminated``.
    @discardableResult
    public mutating func finish() -> Bool {
        let dropped = parser.finish()
        return dropped && !isTerminated
    }

    /// Thrown inside ``append(_:_:)`` to stop parsing at the terminator.
    private struct Terminated: Error {}
}
