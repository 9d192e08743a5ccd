import Foundation
import KiloCore

/// What `ServerSentEventDecoder` must make of a whole body: the events the standard gives
/// (``EventStreamModel``), each one's data decoded as JSON, until an event whose data is the
/// terminator (after which nothing, not even an error, comes); an event that does not decode is
/// skipped or ends the stream with `undecodableEvent` at the line where the event starts.
struct EventDecoderModel: Equatable {
    var values: [JSONValue] = []
    var error: StreamElementError?
    var isTerminated = false
    /// What `finish()` reports: something dropped, unless the stream was terminated.
    var dropsSomething = false

    init() {}

    /// The outcome for a body whose events are `stream`'s.
    init(_ stream: EventStreamModel, terminator: String?, skipsUndecodable: Bool) {
        for (event, line) in zip(stream.events, stream.eventLines) {
            if event.data == terminator {
                isTerminated = true
                return
            }
            do {
                values.append(try JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)))
            } catch {
                if skipsUndecodable { continue }
                self.error = .undecodableEvent(line: line, underlyingError: error)
                return
            }
        }
        error = stream.error
        dropsSomething = error == nil && stream.dropsSomething
    }

    /// What `ServerSentEventDecoder` makes of the same body, fed in `chunks`.
    static func parsed(_ chunks: [Data], limit: Int, terminator: String?, skipsUndecodable: Bool) -> EventDecoderModel {
        var outcome = EventDecoderModel()
        var decoder = ServerSentEventDecoder(
            JSONValue.self,
            terminator: terminator,
            undecodableEvents: skipsUndecodable ? .skip : .fail,
            maximumEventSize: limit
        )
        outcome.error = chunks.feed("ServerSentEventDecoder") { try decoder.append($0) { outcome.values.append($0) } }
        guard outcome.error == nil else { return outcome }
        outcome.isTerminated = decoder.isTerminated
        outcome.dropsSomething = decoder.finish()
        return outcome
    }
}
