import Foundation
import KiloCore

/// How a streamed response's body becomes the elements of a ``ResponseStream``: raw chunks,
/// lines of text, server-sent events (as they are, or each one's data decoded from JSON), or
/// JSON Lines.
///
/// Pass one to ``WebServiceProxy/stream(_:path:arguments:content:contentType:as:)``:
///
/// ```swift
/// let records = try await proxy.stream(.get, path: "records", as: .jsonLines(of: Record.self))
/// let answer = try await proxy.stream(
///     .post, path: "chat", body: question,
///     as: .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]"))
/// ```
///
/// No element may be longer than the proxy's ``WebServiceProxy/Limits/maximumElementSize``; JSON
/// is decoded with the proxy's ``WebServiceProxy/makeJSONDecoder``.
public struct StreamFormat<Element>: Sendable {
    /// The `Accept` field a request for this format sends, unless the proxy's headers have one.
    let accept: String?
    /// The media type a response must have, or `nil` for any; see ``UnexpectedContentTypeError``.
    var requiredMediaType: String? = nil
    /// How an event stream reconnects; `nil` for no reconnection.
    let reconnection: EventStreamReconnection?
    /// Makes the parser for one response, with the proxy's JSON decoder and element limit.
    let makeParser: @Sendable (_ makeDecoder: () -> JSONDecoder, _ maximumElementSize: Int) -> ElementParser<Element>
}

extension StreamFormat {
    /// A format that asks for `text/event-stream` and accepts no other type.
    private static func eventStream(
        reconnecting reconnection: EventStreamReconnection?,
        makeParser:
            @escaping @Sendable (_ makeDecoder: () -> JSONDecoder, _ maximumElementSize: Int) ->
            ElementParser<Element>
    ) -> StreamFormat {
        StreamFormat(
            accept: "text/event-stream",
            requiredMediaType: "text/event-stream",
            reconnection: reconnection,
            makeParser: makeParser
        )
    }
}

extension StreamFormat where Element == Data {
    /// The body's bytes, in the chunks the transport delivers (of any size, up to about 1 MiB).
    public static var bytes: StreamFormat<Data> {
        StreamFormat(accept: nil, reconnection: nil) { _, _ in ElementParser<Data>.bytes() }
    }
}

extension StreamFormat where Element == String {
    /// The body's lines of UTF-8 text, without their endings (LF, CR or CR LF), blank lines kept;
    /// see ``LineParser``.
    ///
    /// A line that is not UTF-8 fails the stream with ``StreamElementError/invalidUTF8(line:)``.
    public static var lines: StreamFormat<String> {
        StreamFormat(accept: nil, reconnection: nil) { _, limit in ElementParser<String>.lines(maximumLength: limit) }
    }
}

extension StreamFormat where Element == ServerSentEvent {
    /// The events of a `text/event-stream` body, parsed as a browser's `EventSource` parses them;
    /// see ``ServerSentEventParser``. The request asks for `Accept: text/event-stream`; a
    /// response of another type fails with ``UnexpectedContentTypeError``, as `EventSource` fails it.
    public static var serverSentEvents: StreamFormat<ServerSentEvent> {
        serverSentEvents(reconnecting: nil)
    }

    /// The events of a `text/event-stream` body, reconnecting as a browser's `EventSource` does
    /// when the connection ends.
    ///
    /// - Parameter reconnection: When and how often to reconnect; `nil` for never.
    /// - Returns: The format.
    public static func serverSentEvents(reconnecting reconnection: EventStreamReconnection?) -> StreamFormat {
        eventStream(reconnecting: reconnection) { _, limit in
            ElementParser<ServerSentEvent>.events(maximumSize: limit)
        }
    }
}

extension StreamFormat where Element: Decodable & Sendable {
    /// The data of each event of a `text/event-stream` body, decoded from JSON: the shape of a
    /// chat model's streamed answer. See ``ServerSentEventDecoder``. A response of another type
    /// fails with ``UnexpectedContentTypeError``.
    ///
    /// ```swift
    /// .serverSentEvents(of: ChatChunk.self, terminator: "[DONE]")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - terminator: The data of the event that ends the stream, such as `[DONE]`: it is not
    ///     decoded, and the rest of the response is not read (its transfer is cancelled). `nil`,
    ///     the default, ends the stream with the response.
    ///   - undecodableEvents: What to do with an event whose data does not decode:
    ///     ``UndecodableEventPolicy/fail`` (the default) ends the stream with
    ///     ``StreamElementError/undecodableEvent(line:underlyingError:)``;
    ///     ``UndecodableEventPolicy/skip`` goes on without it.
    ///   - reconnection: When and how often to reconnect as `EventSource` does; `nil`, the
    ///     default, for never. The terminator ends a reconnecting stream for good.
    /// - Returns: The format.
    public static func serverSentEvents(
        of type: Element.Type,
        terminator: String? = nil,
        undecodableEvents: UndecodableEventPolicy = .fail,
        reconnecting reconnection: EventStreamReconnection? = nil
    ) -> StreamFormat {
        eventStream(reconnecting: reconnection) { makeDecoder, limit in
            ElementParser.decodedEvents(
                decoder: makeDecoder(),
                terminator: terminator,
                undecodableEvents: undecodableEvents,
                maximumSize: limit
            )
        }
    }

    /// The lines of a JSON Lines (NDJSON) body, each decoded from JSON; blank lines are skipped.
    /// See ``JSONLinesParser``. The request asks for `Accept: application/x-ndjson`.
    ///
    /// A line that does not decode fails the stream with
    /// ``StreamElementError/undecodableJSON(line:underlyingError:)``, which gives its number.
    ///
    /// - Parameter type: The type of each line's value.
    /// - Returns: The format.
    public static func jsonLines(of type: Element.Type) -> StreamFormat {
        StreamFormat(accept: "application/x-ndjson", reconnection: nil) { makeDecoder, limit in
            ElementParser.jsonLines(decoder: makeDecoder(), maximumLength: limit)
        }
    }
}
