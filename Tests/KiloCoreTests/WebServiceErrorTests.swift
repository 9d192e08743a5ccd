import Foundation
import KiloCore
import KiloTransport
import Testing

@Suite struct WebServiceErrorTests {
    @Test func textBodyIsTheLocalizedDescription() {
        let error = WebServiceError(
            statusCode: 404,
            headers: ["content-type": "text/plain; charset=utf-8"],
            body: Data("no such user".utf8)
        )
        #expect(error.text == "no such user")
        #expect(error.errorDescription == "no such user")
        #expect(error.localizedDescription == "no such user")
        #expect(error.description == "WebServiceError(404): no such user")
    }

    /// Characters that would break a log line, reorder its text or hide text in it are escaped,
    /// as control characters are; a joiner inside an emoji is kept.
    @Test func separatorsAndInvisibleFormatCharactersAreEscaped() {
        let text = "a\u{2028}b\u{2029}c\u{202E}d\u{2066}e\u{200F}f\u{200B}g\u{FEFF}h\u{E0041}i\u{180E}j "
            + "k\u{34F}l\u{115F}m\u{3164}n\u{E0100}o\u{180B}p " + "\u{1F469}\u{200D}\u{1F4BB}\u{2764}\u{FE0F}"
        let error = WebServiceError(
            statusCode: 500,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data(text.utf8)
        )
        let escaped = #"a\u{2028}b\u{2029}c\u{202E}d\u{2066}e\u{200F}f\u{200B}g\u{FEFF}h\u{E0041}i\u{180E}j "#
            + #"k\u{34F}l\u{115F}m\u{3164}n\u{E0100}o\u{180B}p "#
        #expect(error.localizedDescription == escaped + "\u{1F469}\u{200D}\u{1F4BB}\u{2764}\u{FE0F}")
    }

    @Test func textBodyWithoutCharsetIsReadAsUTF8() {
        let error = WebServiceError(
            statusCode: 400,
            headers: ["Content-Type": "text/csv"],
            body: Data("café;crème".utf8)
        )
        #expect(error.localizedDescription == "café;crème")
    }

    @Test func latin1BodyIsDecodedWithItsCharset() {
        let body = Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x66, 0x65, 0x72, 0x6D, 0xE9])  // "café fermé" in ISO-8859-1
        let error = WebServiceError(
            statusCode: 503,
            headers: ["Content-Type": "text/plain; charset=ISO-8859-1"],
            body: body
        )
        #expect(error.text == "café fermé")
        #expect(error.localizedDescription == "café fermé")
    }

    /// Error pages of older Japanese, Russian and Central European services, in charsets that
    /// Foundation decodes on every platform.
    @Test(
        arguments: [
            ("Shift_JIS", [0x83, 0x47, 0x83, 0x89, 0x81, 0x5B], "エラー"),
            ("windows-1251", [0xCE, 0xF8, 0xE8, 0xE1, 0xEA, 0xE0], "Ошибка"),
            ("ISO-8859-2", [0x42, 0xB3, 0xB1, 0x64], "Błąd"),
            ("windows-1250", [0x42, 0xB3, 0xB9, 0x64], "Błąd"),
            ("iso-2022-jp", [0x1B, 0x24, 0x42, 0x25, 0x28, 0x25, 0x69, 0x21, 0x3C, 0x1B, 0x28, 0x42], "エラー"),
            ("utf-32le", [0x4F, 0x00, 0x00, 0x00, 0x4B, 0x00, 0x00, 0x00], "OK"),
        ] as [(String, [UInt8], String)]
    )
    func bodyInAnotherCharsetIsDecodedWithIt(charset: String, bytes: [UInt8], text: String) {
        let error = WebServiceError(
            statusCode: 500,
            headers: ["Content-Type": "text/plain; charset=\(charset)"],
            body: Data(bytes)
        )
        #expect(error.text == text)
        #expect(error.localizedDescription == text)
    }

    @Test func jsonBodyGivesTheReasonPhrase() {
        let error = WebServiceError(
            statusCode: 404,
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"message":"no such user"}"#.utf8)
        )
        #expect(error.text == nil)
        #expect(error.localizedDescription == "Not Found")
        #expect(error.description == "WebServiceError(404): Not Found")
    }

    @Test(arguments: ["text/html", "text/html; charset=utf-8", "TEXT/HTML", "application/xhtml+xml"])
    func htmlBodyGivesTheStatusAndReasonPhraseAndStaysReadable(contentType: String) {
        let page = "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<title>404 Not Found</title>"
        let error = WebServiceError(statusCode: 404, headers: ["Content-Type": contentType], body: Data(page.utf8))
        #expect(error.localizedDescription == "Not Found")
        #expect(error.description == "WebServiceError(404): Not Found")
        #expect(error.body == Data(page.utf8))
        #expect(error.text == (contentType.lowercased().hasPrefix("text/") ? page : nil))
    }

    @Test(arguments: [
        (400, "Bad Request"), (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found"), (409, "Conflict"),
        (418, "I'm a teapot"), (422, "Unprocessable Content"), (429, "Too Many Requests"),
        (500, "Internal Server Error"), (503, "Service Unavailable"), (499, "Client Error"), (599, "Server Error"),
        (302, "Found"), (399, "Unexpected Status"), (600, "Unexpected Status"),
    ])
    func statusWithoutTextBodyGivesItsReasonPhrase(statusCode: Int, phrase: String) {
        #expect(WebServiceError(statusCode: statusCode).localizedDescription == phrase)
    }

    @Test(arguments: ["", "\n", " \r\n\t "])
    func emptyOrBlankTextBodyFallsBackToTheReasonPhrase(body: String) {
        let error = WebServiceError(statusCode: 500, headers: ["Content-Type": "text/plain"], body: Data(body.utf8))
        #expect(error.text == body)
        #expect(error.localizedDescription == "Internal Server Error")
    }

    /// A mark on a leading space makes one character with it, which counts as white space; the
    /// mark is still text to show (found by Fuzz/run.sh responses).
    @Test func markAfterLeadingSpaceIsShown() {
        let error = WebServiceError(
            statusCode: 400,
            headers: ["Content-Type": "text/plain"],
            body: Data(" \u{C4A}".utf8)
        )
        #expect(error.localizedDescription == "\u{C4A}")
    }

    @Test func bodyWithoutContentTypeIsNotText() {
        let error = WebServiceError(statusCode: 502, body: Data("upstream down".utf8))
        #expect(error.contentType == nil)
        #expect(error.text == nil)
        #expect(error.localizedDescription == "Bad Gateway")
    }

    @Test func bodyThatIsNotValidInItsCharsetFallsBackToTheReasonPhrase() {
        let error = WebServiceError(
            statusCode: 500,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data([0xFF, 0xFE, 0xC3])
        )
        #expect(error.text == nil)
        #expect(error.localizedDescription == "Internal Server Error")
    }

    @Test func contentTypeIsReadInAnyCase() {
        let error = WebServiceError(statusCode: 400, headers: ["CONTENT-TYPE": "text/plain"])
        #expect(error.contentType == "text/plain")
    }

    @Test func keepsTheBodyRawAndTheHeaders() {
        let body = Data([0x00, 0xFF, 0x10])
        let error = WebServiceError(statusCode: 500, headers: ["X-Trace": "abc"], body: body)
        #expect(error.statusCode == 500)
        #expect(error.body == body)
        #expect(error.headers["x-trace"] == "abc")
    }

    private struct Problem: Decodable, Equatable {
        var title: String
        var at: Date
    }

    @Test func decodeBodyReadsTheServersErrorModel() throws {
        let error = WebServiceError(
            statusCode: 422,
            headers: ["Content-Type": "application/problem+json"],
            body: Data(#"{"title":"bad email","at":1700000000000}"#.utf8)
        )
        let problem = try error.decodeBody(Problem.self)
        #expect(problem == Problem(title: "bad email", at: Date(timeIntervalSince1970: 1_700_000_000)))
    }

    @Test func decodeBodyThrowsDecodingErrorForAnotherShape() {
        let error = WebServiceError(statusCode: 500, headers: ["Content-Type": "text/plain"], body: Data("oops".utf8))
        #expect(throws: DecodingError.self) {
            try error.decodeBody(Problem.self)
        }
    }

    @Test func equalErrorsCompareAndHashEqual() {
        let lhs = WebServiceError(statusCode: 404, headers: ["Content-Type": "text/plain"], body: Data("x".utf8))
        let rhs = WebServiceError(statusCode: 404, headers: ["content-type": "text/plain"], body: Data("x".utf8))
        #expect(lhs == rhs)
        #expect(lhs.hashValue == rhs.hashValue)
        #expect(lhs != WebServiceError(statusCode: 404, headers: ["Content-Type": "text/plain"], body: Data("y".utf8)))
    }
}
