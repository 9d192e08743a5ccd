import Foundation
import KiloCore
import KiloTransport

/// The `async` `invoke` methods.
///
/// They behave as the callback methods do, but return the value or throw the error. Cancelling
/// the calling task cancels the request, which then throws `URLError(.cancelled)`. They never
/// use ``callbackQueue``.
extension WebServiceProxy {
    /// Calls an operation that returns no content.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments. See ``Argument/init(_:forKey:)`` for the accepted types.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    /// - Throws: ``WebServiceError`` for a status outside 2xx; ``ArgumentEncodingError`` or
    ///   ``RequestError`` for bad input (nothing is sent); `URLError` when no response arrives.
    public func invoke(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: ProgressHandler? = nil
    ) async throws {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: Self.content(content, type: contentType),
            progress: progress?.handler
        )
        try ResponseMapper.validate(await response(to: request))
    }

    /// Calls an operation that returns JSON, decoded by ``makeJSONDecoder`` (dates as epoch milliseconds).
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    /// - Returns: The decoded value; `nil` for an empty body when `T` is optional.
    /// - Throws: ``WebServiceError``, ``ArgumentEncodingError``, ``RequestError``, `URLError`, or
    ///   `DecodingError` for a body that is not a valid `T`.
    public func invoke<T: Decodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: ProgressHandler? = nil
    ) async throws -> T {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: Self.content(content, type: contentType),
            accept: "application/json",
            progress: progress?.handler
        )
        return try decodingJSON()(await response(to: request))
    }

    /// Calls an operation with a JSON body, for an operation that returns no content.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder`` (dates as epoch milliseconds).
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    /// - Throws: `EncodingError` if the body cannot be encoded, and the errors of
    ///   ``invoke(_:path:arguments:content:contentType:progress:)->()``.
    public func invoke<B: Encodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        progress: ProgressHandler? = nil
    ) async throws {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: jsonContent(body),
            progress: progress?.handler
        )
        try ResponseMapper.validate(await response(to: request))
    }

    /// Calls an operation with a JSON body, for an operation that returns JSON.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder`` (dates as epoch milliseconds).
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    /// - Returns: The decoded value.
    /// - Throws: `EncodingError` if the body cannot be encoded, `DecodingError` if the response
    ///   does not decode, and the other errors of the JSON `invoke`.
    public func invoke<B: Encodable, T: Decodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        progress: ProgressHandler? = nil
    ) async throws -> T {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: jsonContent(body),
            accept: "application/json",
            progress: progress?.handler
        )
        return try decodingJSON()(await response(to: request))
    }

    /// Calls an operation whose response is read by a custom handler.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    ///   - responseHandler: Reads a successful response's body and content type.
    /// - Returns: The handler's value.
    /// - Throws: What the handler throws, and the errors of the other `invoke` methods.
    public func invoke<T>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: ProgressHandler? = nil,
        responseHandler: ResponseHandler<T>
    ) async throws -> T {
        try await invoke(
            method,
            path: path,
            arguments: arguments,
            content: content,
            contentType: contentType,
            progress: progress,
            responseHandler: { content, contentType, _ in try responseHandler(content, contentType) }
        )
    }

    /// Calls an operation whose response is read by a custom handler that also sees the
    /// response's headers.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; named only
    ///     (see ``ProgressHandler``).
    ///   - responseHandler: Reads a successful response's body, content type and headers.
    /// - Returns: The handler's value.
    /// - Throws: What the handler throws, and the errors of the other `invoke` methods.
    public func invoke<T>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: ProgressHandler? = nil,
        responseHandler: ResponseHeadersHandler<T>
    ) async throws -> T {
        let request = try makeRequest(
            method,
            path: path,
            arguments: arguments,
            content: Self.content(content, type: contentType),
            progress: progress?.handler
        )
        return try ResponseMapper.value(from: await response(to: request), handler: responseHandler)
    }
}
