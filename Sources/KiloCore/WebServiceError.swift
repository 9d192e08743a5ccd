import Foundation
import KiloTransport

/// A response whose status code is outside the 2xx range.
///
/// It keeps everything the server said, so the caller can act on it: the status code, the
/// headers, and the body, raw and unmodified. When the body is text (`text/*`), that text is
/// the error's `localizedDescription`; otherwise it is the status's reason phrase, such as
/// "Not Found".
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
    /// The body's text for a `text/*` response whose body has more than white space; otherwise
    /// the status's reason phrase.
    public var errorDescription: String? {
        if let text, !text.allSatisfy(\.isWhitespace) {
            return text
        }
        return HTTPStatus.reasonPhrase(for: statusCode)
    }
}

extension WebServiceError: CustomStringConvertible {
    /// The status code and the error's description.
    public var description: String {
        "WebServiceError(\(statusCode)): \(errorDescription ?? "")"
    }
}
