import Foundation
import KiloCore
import KiloTransport
import Testing

@Suite struct UnexpectedContentTypeErrorTests {
    @Test func aTypeMatchesWhateverItsParametersAndCase() {
        #expect(UnexpectedContentTypeError.matches("text/event-stream", expected: "text/event-stream"))
        #expect(
            UnexpectedContentTypeError.matches("TEXT/Event-Stream ; charset=UTF-8", expected: "text/event-stream")
        )
        #expect(!UnexpectedContentTypeError.matches("text/event-streams", expected: "text/event-stream"))
        #expect(!UnexpectedContentTypeError.matches("text/plain", expected: "text/event-stream"))
        #expect(!UnexpectedContentTypeError.matches("event-stream", expected: "text/event-stream"))
        #expect(!UnexpectedContentTypeError.matches(nil, expected: "text/event-stream"))
    }

    /// The description names both types; the server's is escaped and cut short as a
    /// `WebServiceError`'s text is, so that it cannot reorder or flood a log line.
    @Test func theDescriptionNamesBothTypesWithTheServersEscaped() {
        let none = UnexpectedContentTypeError(expected: "text/event-stream", statusCode: 200)
        #expect(none.localizedDescription == "The response is not text/event-stream: it has no Content-Type.")
        let json = UnexpectedContentTypeError(
            expected: "text/event-stream",
            statusCode: 200,
            headers: ["Content-Type": "application/json"]
        )
        let named = "The response is not text/event-stream: it has Content-Type application/json."
        #expect(json.localizedDescription == named)
        let hostile = UnexpectedContentTypeError(
            expected: "text/event-stream",
            statusCode: 200,
            headers: ["Content-Type": "text/\u{202E}lmth" + String(repeating: "a", count: 1000)]
        )
        #expect(hostile.localizedDescription.contains(#"text/\u{202E}lmth"#))
        #expect(hostile.localizedDescription.count < 400)
        #expect(String(describing: hostile) == "UnexpectedContentTypeError(200): " + hostile.localizedDescription)
    }
}
