/// What a ``ServerSentEventDecoder`` does with an event whose data does not decode.
///
/// ```swift
/// var decoder = ServerSentEventDecoder(Chunk.self, terminator: "[DONE]", undecodableEvents: .skip)
/// ```
public struct UndecodableEventPolicy: Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case skip
        case fail
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// Throw ``StreamElementError/undecodableEvent(line:underlyingError:)``: the stream holds only
    /// events of the expected type, and anything else is a fault.
    public static let fail = UndecodableEventPolicy(.fail)

    /// Skip the event and go on: the stream mixes in events of other kinds, such as keep-alive
    /// pings, that the caller does not want.
    public static let skip = UndecodableEventPolicy(.skip)
}
