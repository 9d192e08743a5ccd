import Foundation
import KiloCore
import KiloTransport

/// The callback-style `invoke` methods, compatible with Kilo 3.x.
///
/// Each returns at once. The result handler runs later, exactly once, on the caller's actor, or,
/// for a caller isolated to no actor, on ``callbackQueue``.
extension WebServiceProxy {
    /// Calls an operation that returns no content.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments. See ``Argument/init(_:forKey:)`` for the accepted types.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - resultHandler: Receives success, or the error: ``WebServiceError`` for a status outside
    ///     2xx, ``ArgumentEncodingError`` or ``RequestError`` for bad input, `URLError` otherwise.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    @discardableResult
    public func invoke(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: TransferProgress.Handler? = nil,
        resultHandler: @escaping ResultHandler<Void>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        start(
            {
                try makeRequest(
                    method,
                    path: path,
                    arguments: arguments,
                    content: Self.content(content, type: contentType),
                    progress: progress
                )
            },
            map: ResponseMapper.validate,
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    /// Calls an operation that returns JSON, decoded by ``makeJSONDecoder`` (dates as epoch milliseconds).
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - resultHandler: Receives the decoded value, or the error; a body that does not decode
    ///     gives `DecodingError`. An empty body decodes to `nil` for an optional type.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    @discardableResult
    public func invoke<T: Decodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: TransferProgress.Handler? = nil,
        resultHandler: @escaping ResultHandler<T>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        start(
            {
                try makeRequest(
                    method,
                    path: path,
                    arguments: arguments,
                    content: Self.content(content, type: contentType),
                    accept: "application/json",
                    progress: progress
                )
            },
            map: decodingJSON(),
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    /// Calls an operation with a JSON body, for an operation that returns no content.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder`` (dates as epoch milliseconds).
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - resultHandler: Receives success, or the error.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    /// - Throws: `EncodingError` if the body cannot be encoded (nothing is sent).
    @discardableResult
    public func invoke<B: Encodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        progress: TransferProgress.Handler? = nil,
        resultHandler: @escaping ResultHandler<Void>,
        isolation: isolated (any Actor)? = #isolation
    ) throws -> RequestTask? {
        let content = try jsonContent(body)
        return start(
            { try makeRequest(method, path: path, arguments: arguments, content: content, progress: progress) },
            map: ResponseMapper.validate,
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    /// Calls an operation with a JSON body, for an operation that returns JSON.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder`` (dates as epoch milliseconds).
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - resultHandler: Receives the decoded value, or the error.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    /// - Throws: `EncodingError` if the body cannot be encoded (nothing is sent).
    @discardableResult
    public func invoke<B: Encodable, T: Decodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        progress: TransferProgress.Handler? = nil,
        resultHandler: @escaping ResultHandler<T>,
        isolation: isolated (any Actor)? = #isolation
    ) throws -> RequestTask? {
        let content = try jsonContent(body)
        return start(
            {
                try makeRequest(
                    method,
                    path: path,
                    arguments: arguments,
                    content: content,
                    accept: "application/json",
                    progress: progress
                )
            },
            map: decodingJSON(),
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    /// Calls an operation whose response is read by a custom handler: an image, text, CSV, or
    /// anything else.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - responseHandler: Reads a successful response's body, in the background.
    ///   - resultHandler: Receives the handler's value, or the error (including what the
    ///     response handler threw).
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    @discardableResult
    public func invoke<T>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: TransferProgress.Handler? = nil,
        responseHandler: @escaping ResponseHandler<T>,
        resultHandler: @escaping ResultHandler<T>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        invoke(
            method,
            path: path,
            arguments: arguments,
            content: content,
            contentType: contentType,
            progress: progress,
            responseHandler: { content, contentType, _ in try responseHandler(content, contentType) },
            resultHandler: resultHandler,
            isolation: isolation
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
    ///   - progress: Receives upload and download progress, on a background thread; but with a body, the
    ///     first report may come from the calling thread, before this method returns.
    ///   - responseHandler: Reads a successful response's body, content type and headers, in the
    ///     background.
    ///   - resultHandler: Receives the handler's value, or the error.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    @discardableResult
    public func invoke<T>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        progress: TransferProgress.Handler? = nil,
        responseHandler: @escaping ResponseHeadersHandler<T>,
        resultHandler: @escaping ResultHandler<T>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        start(
            {
                try makeRequest(
                    method,
                    path: path,
                    arguments: arguments,
                    content: Self.content(content, type: contentType),
                    progress: progress
                )
            },
            map: { try ResponseMapper.value(from: $0, handler: responseHandler) },
            isolation: isolation,
            resultHandler: resultHandler
        )
    }
}
