import Foundation
import KiloCore

/// One of KiloCore's streaming parsers, as a ``ResponseStream`` drives it: chunks in, elements
/// out, whatever the parser.
///
/// The parser lives in the closures' shared capture, so that a stream holds any parser without an
/// existential of a protocol with an associated type (which the package's oldest platforms cannot
/// cast at run time). Made for one iteration, used by it alone.
struct ElementParser<Element> {
    /// Parses a chunk, handing over each element it completes.
    let append: (Data, (Element) throws -> Void) throws -> Void
    /// The body has ended: hands over a last element the body ended without a line ending, for
    /// the formats that have one, and readies the parser for another connection.
    let finish: ((Element) throws -> Void) throws -> Void
    /// Whether a terminator event has ended the stream.
    let isTerminated: () -> Bool
    /// The event stream's last event ID and reconnection time, in milliseconds, for
    /// reconnecting; empty and `nil` for the other formats.
    let eventStream: () -> (lastEventID: String, reconnectionTime: Int?)

    /// A parser that hands each chunk over as it is.
    static func bytes() -> ElementParser<Data> {
        ElementParser<Data>(
            append: { chunk, handle in try handle(chunk) },
            finish: { _ in },
            isTerminated: { false },
            eventStream: { ("", nil) }
        )
    }

    /// A ``LineParser``.
    static func lines(maximumLength: Int) -> ElementParser<String> {
        var parser = LineParser(maximumLineLength: maximumLength)
        return ElementParser<String>(
            append: { chunk, handle in try parser.append(chunk, handle) },
            finish: { handle in try parser.finish(handle) },
            isTerminated: { false },
            eventStream: { ("", nil) }
        )
    }

    /// A ``ServerSentEventParser``.
    static func events(maximumSize: Int) -> ElementParser<ServerSentEvent> {
        var parser = ServerSentEventParser(maximumEventSize: maximumSize)
        return ElementParser<ServerSentEvent>(
            append: { chunk, handle in try parser.append(chunk, handle) },
            finish: { _ in parser.finish() },
            isTerminated: { false },
            eventStream: { (parser.lastEventID, parser.reconnectionTime) }
        )
    }
}

extension ElementParser where Element: Decodable {
    /// A ``ServerSentEventDecoder``.
    static func decodedEvents(
        decoder: JSONDecoder,
        terminator: String?,
        undecodableEvents: UndecodableEventPolicy,
        maximumSize: Int
    ) -> ElementParser<Element> {
        var parser = ServerSentEventDecoder(
            Element.self,
            decoder: decoder,
            terminator: terminator,
            undecodableEvents: undecodableEvents,
            maximumEventSize: maximumSize
        )
        return ElementParser(
            append: { chunk, handle in try parser.append(chunk, handle) },
            finish: { _ in parser.finish() },
            isTerminated: { parser.isTerminated },
            eventStream: { (parser.lastEventID, parser.reconnectionTime) }
        )
    }

    /// A ``JSONLinesParser``.
    static func jsonLines(decoder: JSONDecoder, maximumLength: Int) -> ElementParser<Element> {
        var parser = JSONLinesParser(Element.self, decoder: decoder, maximumLineLength: maximumLength)
        return ElementParser(
            append: { chunk, handle in try parser.append(chunk, handle) },
            finish: { handle in try parser.finish(handle) },
            isTerminated: { false },
            eventStream: { ("", nil) }
        )
    }
}
