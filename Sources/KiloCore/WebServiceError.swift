import Foundation
import KiloTransport

/// A response whose status code is outside the 2xx range.
///
/// It keeps everything the server said, so the caller can act on it: the status code, the
/// headers, and the body, raw and unmodified (a proxy keeps its first 1 MiB). When the body is
/// text (`text/*`) other than HTML, that text is the error's `localizedDescription`, its first
/// ``descriptionLimit`` characters with control characters escaped, so that a hostile server
/// cannot flood a log or write escape sequences to a terminal; otherwise (an HTML error page,
/// JSON, no body) it is the status's reason phrase, such as "Not Found". ``text`` still reads an
/// HTML body.
///
/// ```swift
/// do {
///     let user: User = try await proxy.invoke(.get, path: "users/9")
/// } catch let error as WebServiceError where error.statusCode == 404 {
///     let problem = try error.decodeBody(Problem.self)   // the server's own error model
/// }
/// ```
public struct WebServiceError: Error, Sendable, Hashable {
    /// The HTTP status code, such as 404.
    public var statusCode: Int
    /// The response's header fields.
    public var headers: HTTPHeaders
    /// The response body, exactly as received.
    public var body: Data

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The response's header fields.
    ///   - body: The response body.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The response's `Content-Type` header value, if any.
    public var contentType: String? {
        headers["Content-Type"]
    }

    /// The body as text, when the response is `text/*`: decoded with its `charset`, or UTF-8.
    public var text: String? {
        guard let contentType, let mediaType = MediaType(contentType), mediaType.isText else {
            return nil
        }
        return String(data: body, encoding: mediaType.charset ?? .utf8)
    }

    /// Decodes the body as JSON, for servers that describe errors with a JSON document.
    ///
    /// - Parameter type: The type to decode.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` if the body is not a valid `type`.
    public func decodeBody<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.makeDecoder().decode(type, from: body)
    }
}

extension WebServiceError: LocalizedError {
    /// The body's text for a `text/*` response other than `text/html` whose body has more than
    /// white space; otherwise the status's reason phrase: an HTML error page is markup for a
    /// browser, not a message for a person.
    public var errorDescription: String? {
        if !isHTML, let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            return Self.summary(of: text)
        }
        return HTTPStatus.reasonPhrase(for: statusCode)
    }

    /// Whether the body is an HTML page: `text/html` (`application/xhtml+xml` is not text).
    private var isHTML: Bool {
        contentType.flatMap(MediaType.init).map { $0.type == "text" && $0.subtype == "html" } ?? false
    }

    /// The most characters of a body's text that the description shows.
    public static let descriptionLimit = 300

    /// The first ``descriptionLimit`` characters of `text`, with CR, LF, ESC and the other
    /// control characters escaped (`\\r`, `\\n`, `\\u{1B}`), and an ellipsis when some were
    /// left out. Line and paragraph separators and the invisible format characters (bidirectional
    /// controls such as U+202E, U+200B, U+FEFF, tag characters) are escaped too: they would break
    /// a log line, show its text in another order or hide text in it, and so are the other
    /// characters that show nothing (U+034F, the Hangul fillers U+115F and U+3164). The joiners
    /// and variation selectors that shape emoji and scripts (U+200C, U+200D, U+FE00–FE0F) are
    /// kept; the other variation selectors, which can hide bytes after a letter, are not.
    static func summary(of text: String) -> String {
        var summary = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < descriptionLimit else {
                return summary + "…"
            }
            count += 1
            switch scalar {
            case "\r": summary += "\\r"
            case "\n": summary += "\\n"
            case "\t": summary += "\\t"
            case _ where Self.isEscaped(scalar):
                summary += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: summary.unicodeScalars.append(scalar)
            }
        }
        return summary
    }

    private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator:
            return true
        default:
            if scalar == "\u{200C}" || scalar == "\u{200D}" || ("\u{FE00}"..."\u{FE0F}").contains(scalar) {
                return false
            }
            return properties.generalCategory == .format || properties.isBidiControl
                || properties.isDefaultIgnorableCodePoint
        }
    }
}

extension WebServiceError: CustomStringConvertible {
    /// The status code and the error's description.
    public var description: String {
        "WebServiceError(\(statusCode)): \(errorDescription ?? "")"
    }
}
