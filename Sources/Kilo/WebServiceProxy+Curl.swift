import Foundation
import KiloCore
import KiloTransport

/// The `curl` command for a call, without making it.
extension WebServiceProxy {
    /// Returns a `curl` command that sends the request a call would send, redacted by default,
    /// without sending anything.
    ///
    /// The request is built as the call builds it, with the proxy's settings as they are now:
    /// the arguments in the query, a form or a multipart body (files read into it, with a fresh
    /// boundary), the body and its media type, the proxy's headers. See
    /// ``TransportRequest/curlCommand(redacting:)`` for how the command is written.
    ///
    /// ```swift
    /// print(try proxy.curlCommand(.post, path: "login", arguments: ["user": "me", "password": "…"]))
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - returningJSON: Whether the call decodes JSON (an `invoke` that returns a `Decodable`),
    ///     which asks for `application/json` unless the headers or the session already ask;
    ///     `false` for one that returns nothing or reads the response with a handler.
    ///   - redaction: What to hide; ``Redaction/standard`` unless you pass ``Redaction/none``.
    /// - Returns: The command.
    /// - Throws: What the call would throw before sending: ``ArgumentEncodingError`` or
    ///   ``RequestError``.
    public func curlCommand(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        returningJSON: Bool = true,
        redacting redaction: Redaction = .standard
    ) throws -> String {
        let prepared = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: Self.content(content, type: contentType),
            accept: returningJSON ? "application/json" : nil
        )
        return try Self.curlCommand(for: prepared, redacting: redaction)
    }

    /// Returns a `curl` command that sends the request a call with a JSON body would send,
    /// redacted by default, without sending anything.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder``.
    ///   - returningJSON: Whether the call decodes JSON, which asks for `application/json`.
    ///   - redaction: What to hide; ``Redaction/standard`` unless you pass ``Redaction/none``.
    /// - Returns: The command.
    /// - Throws: `EncodingError` if the body cannot be encoded, and the errors of
    ///   ``curlCommand(_:path:arguments:content:contentType:returningJSON:redacting:)``.
    public func curlCommand<B: Encodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        returningJSON: Bool = true,
        redacting redaction: Redaction = .standard
    ) throws -> String {
        let prepared = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: jsonContent(body),
            accept: returningJSON ? "application/json" : nil
        )
        return try Self.curlCommand(for: prepared, redacting: redaction)
    }

    /// The command for a prepared request; a multipart body that would be streamed from a
    /// temporary file is built in memory instead, with the same boundary.
    private static func curlCommand(for prepared: PreparedRequest, redacting redaction: Redaction) throws -> String {
        var request = prepared.request
        if let streamed = prepared.streamedBody {
            request.body = .data(try streamed.encoder.encode(streamed.arguments))
        }
        return request.curlCommand(redacting: redaction)
    }
}
