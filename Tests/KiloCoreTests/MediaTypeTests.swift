import Foundation
import KiloCore
import Testing

@Suite struct MediaTypeTests {
    @Test func parsesTypeSubtypeAndParameters() throws {
        let mediaType = try #require(MediaType("text/plain; charset=utf-8; format=flowed"))
        #expect(mediaType.type == "text")
        #expect(mediaType.subtype == "plain")
        #expect(mediaType.parameters == ["charset": "utf-8", "format": "flowed"])
    }

    @Test func parsesATypeWithoutParameters() throws {
        let mediaType = try #require(MediaType("application/json"))
        #expect(mediaType.type == "application")
        #expect(mediaType.subtype == "json")
        #expect(mediaType.parameters.isEmpty)
    }

    @Test func lowercasesTypeSubtypeAndParameterNamesButNotValues() throws {
        let mediaType = try #require(MediaType("Text/HTML; Charset=UTF-8; Boundary=AbC"))
        #expect(mediaType.type == "text")
        #expect(mediaType.subtype == "html")
        #expect(mediaType.parameters == ["charset": "UTF-8", "boundary": "AbC"])
        #expect(mediaType == MediaType("text/html;charset=UTF-8;boundary=AbC"))
    }

    @Test func trimsWhitespaceAroundTheTypeAndParameters() throws {
        let mediaType = try #require(MediaType("  text/plain ;  charset = utf-8  "))
        #expect(mediaType.type == "text")
        #expect(mediaType.subtype == "plain")
        #expect(mediaType.parameters == ["charset": "utf-8"])
    }

    @Test func removesQuotesFromParameterValues() throws {
        let mediaType = try #require(MediaType(#"multipart/form-data; boundary="a b=c"; charset="utf-8""#))
        #expect(mediaType.parameters["boundary"] == "a b=c")
        #expect(mediaType.parameters["charset"] == "utf-8")
        #expect(mediaType.charset == .utf8)
    }

    @Test func skipsParametersWithoutAValue() throws {
        let mediaType = try #require(MediaType("text/plain; ; flag; charset=ascii;"))
        #expect(mediaType.parameters == ["charset": "ascii"])
    }

    /// Type and subtype are tokens, with nothing between them and the slash, as browsers parse
    /// them: a server's `text / event-stream` is not an event stream.
    @Test(arguments: [
        "", "text", "text/", "/plain", " / ", "textplain; charset=utf-8", ";charset=utf-8", "text / plain",
        "text /plain", "text/ plain", "text/html, application/json", "text/plain/x", "te\"xt/plain", "tëxt/plain",
        // Not tokens, though one lowercases to "k"; Unicode's white space is not HTTP's.
        "text/\u{212A}", "\u{3000}text/plain", "text/plain\u{A0}",
    ])
    func invalidValueIsNil(string: String) {
        #expect(MediaType(string) == nil)
    }

    @Test(arguments: [
        ("utf-8", String.Encoding.utf8), ("UTF8", .utf8), ("us-ascii", .ascii), ("ascii", .ascii),
        ("ISO-8859-1", .isoLatin1), ("latin1", .isoLatin1), ("iso8859-1", .isoLatin1), ("utf-16", .utf16),
        ("UTF-16BE", .utf16BigEndian), ("utf-16le", .utf16LittleEndian), ("windows-1252", .windowsCP1252),
        ("cp1252", .windowsCP1252), ("\"utf-8\"", .utf8), ("Shift_JIS", .shiftJIS), ("EUC-JP", .japaneseEUC),
        ("windows-1251", .windowsCP1251), ("UTF-32", .utf32),
    ])
    func charsetMapsToAStringEncoding(name: String, encoding: String.Encoding) throws {
        let mediaType = try #require(MediaType("text/plain; charset=\(name)"))
        #expect(mediaType.charset == encoding)
    }

    @Test(arguments: ["text/plain", "text/plain; charset=klingon", "text/plain; charset="])
    func missingOrUnknownCharsetIsNil(string: String) throws {
        let mediaType = try #require(MediaType(string))
        #expect(mediaType.charset == nil)
    }

    @Test(arguments: [
        ("text/plain", true), ("TEXT/HTML", true), ("text/csv; charset=utf-8", true),
        ("application/json", false), ("application/text", false), ("image/png", false),
    ])
    func isTextForTextTypes(string: String, isText: Bool) throws {
        #expect(try #require(MediaType(string)).isText == isText)
    }

    @Test(arguments: [
        ("application/json", true), ("Application/JSON; charset=utf-8", true), ("application/problem+json", true),
        ("application/vnd.api+json", true), ("text/json", false), ("application/jsonl", false),
        ("application/json-seq", false), ("text/plain", false), ("application/xml", false),
    ])
    func isJSONForJSONAndPlusJSONTypes(string: String, isJSON: Bool) throws {
        #expect(try #require(MediaType(string)).isJSON == isJSON)
    }

    @Test func descriptionListsParametersInNameOrder() throws {
        let mediaType = try #require(MediaType("Text/Plain; Format=flowed; charset=\"utf-8\""))
        #expect(mediaType.description == "text/plain; charset=utf-8; format=flowed")
        #expect(MediaType("application/json")?.description == "application/json")
    }
}
