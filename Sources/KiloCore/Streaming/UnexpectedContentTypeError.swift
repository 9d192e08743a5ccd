import Foundation
import KiloTransport

/// A successful response that is not of the media type the request needs: a stream of
/// server-sent events whose `Content-Type` is not `text/event-stream`, such as a JSON error
/// document sent with a 200, or a page from a proxy on the way.
///
/// A browser's `EventSource` fails such a response rather than parse it as events (it has none,
/// and a reconnecting stream would ask again forever); so does Kilo, keeping what the server
/// said. A 204 No Content, which has no body, ends a stream of any type. For a server you trust
/// that sends events under another type, stream `.bytes` and parse them with a
/// ``ServerSentEventParser``.
///
/// ```swift
/// } catch let error as UnexpectedContentTypeError {
///     print(error.contentType ?? "none", String(decoding: error.body, as: UTF8.self))
/// }
/// ```
public struct UnexpectedContentTypeError: Error, Sendable, Hashable {
    /// The media type the request needs, such as `text/event-stream`.
    public var expected: String
    /// The response's status code, in the 2xx range.
    public var statusCode: Int
    /// The response's header fields.
    public var headers: HTTPHeaders
    /// The start of the response's body, as received: from `WebServiceProxy`, what its first
    /// read brought (at most `errorBodyLimit` bytes), since such a body may be an endless
    /// stream or come slowly.
    public var body: Data

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - expected: The media type the request needs.
    ///   - statusCode: The response's status code.
    ///   - headers: The response's header fields.
    ///   - body: The start of the response's body.
    public init(expected: String, statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.expected = expected
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The response's `Content-Type` header value, if any.
    public var contentType: String? {
        headers["Content-Type"]
    }

    /// Whether `contentType` is of the media type `expected`, whatever its parameters (a
    /// `charset`, say) and the case of its names.
    ///
    /// - Parameters:
    ///   - contentType: A `Content-Type` value, or `nil` for none.
    ///   - expected: A media type, such as `text/event-stream`.
    /// - Returns: `false` for none, or for a value that is not a media type.
    package static func matches(_ contentType: String?, expected: String) -> Bool {
        guard let contentType, let mediaType = MediaType(contentType), let wanted = MediaType(expected) else {
            return false
        }
        return mediaType.type == wanted.type && mediaType.subtype == wanted.subtype
    }
}

extension UnexpectedContentTypeError: LocalizedError {
    /// A sentence that names both media types, the response's escaped and cut short as a
    /// ``WebServiceError``'s text is.
    public var errorDescription: String? {
        let received = contentType.map { "Content-Type \(WebServiceError.summary(of: $0))" } ?? "no Content-Type"
        return "The response is not \(expected): it has \(received)."
    }
}

extension UnexpectedContentTypeError: CustomStringConvertible {
    /// The status code and the error's sentence: what `print(error)` and string interpolation
    /// show, without the headers and body as the server sent them.
    public var description: String {
        "UnexpectedContentTypeError(\(statusCode)): \(errorDescription ?? "")"
    }
}
