import Foundation
import KiloCore
import KiloTransport

/// The callback-style `stream` methods, for code that is not `async`: a thin layer over the
/// `async` ones.
///
/// Each returns at once. The element handler runs on the caller's actor (for a caller isolated to
/// no actor, on ``callbackQueue``) for each element, in order, one at a time: the next element is
/// read only once the handler has returned for the one before, so a busy actor or queue slows the
/// transfer instead of piling elements up. Then the completion handler runs, exactly once, in the
/// same place. After ``RequestTask/cancel()``, no element
/// handler runs, and the completion handler receives `URLError(.cancelled)`.
extension WebServiceProxy {
    /// Calls an operation whose response is read as it arrives, handing each element to a
    /// handler.
    ///
    /// ```swift
    /// task = proxy.stream(.get, path: "records", as: .jsonLines(of: Record.self)) { record in
    ///     records.append(record)   // on the main actor, from main-actor code
    /// } completionHandler: { result in
    ///     if case .failure(let error) = result { show(error) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - content: A request body; the arguments then go in the query string.
    ///   - contentType: The body's media type; `application/octet-stream` when `nil`.
    ///   - format: What an element is (see ``StreamFormat``).
    ///   - elementHandler: Receives each element, on the caller's actor or ``callbackQueue``.
    ///   - completionHandler: Receives success when the stream has ended, or the error of
    ///     ``stream(_:path:arguments:content:contentType:as:)`` or of reading the stream
    ///     (after the elements before it).
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent
    ///   (the completion handler then receives the error).
    @discardableResult
    public func stream<Element>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        as format: StreamFormat<Element>,
        elementHandler: @escaping (Element) -> Void,
        completionHandler: @escaping ResultHandler<Void>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        startStream(
            {
                try makeRequest(
                    method,
                    path: path,
                    arguments: arguments,
                    content: Self.content(content, type: contentType),
                    accept: format.accept
                )
            },
            as: format,
            elementHandler: elementHandler,
            completionHandler: completionHandler,
            isolation: isolation
        )
    }

    /// Calls an operation with a JSON body whose response is read as it arrives, handing each
    /// element to a handler.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, sent in the query string.
    ///   - body: The body, encoded as JSON by ``makeJSONEncoder``.
    ///   - format: What an element is (see ``StreamFormat``).
    ///   - elementHandler: Receives each element, on the caller's actor or ``callbackQueue``.
    ///   - completionHandler: Receives success when the stream has ended, or the error.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input stopped it being sent.
    /// - Throws: `EncodingError` if the body cannot be encoded (nothing is sent).
    @discardableResult
    public func stream<B: Encodable, Element>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        body: B,
        as format: StreamFormat<Element>,
        elementHandler: @escaping (Element) -> Void,
        completionHandler: @escaping ResultHandler<Void>,
        isolation: isolated (any Actor)? = #isolation
    ) throws -> RequestTask? {
        let content = try jsonContent(body)
        return startStream(
            { try makeRequest(method, path: path, arguments: arguments, content: content, accept: format.accept) },
            as: format,
            elementHandler: elementHandler,
            completionHandler: completionHandler,
            isolation: isolation
        )
    }

    /// Starts a callback-style stream: reads the `async` stream in the request's task, and hands
    /// each element to the callback queue, waiting for its handler before reading the next.
    private func startStream<Element>(
        _ makeRequest: () throws -> PreparedRequest,
        as format: StreamFormat<Element>,
        elementHandler: @escaping (Element) -> Void,
        completionHandler: @escaping ResultHandler<Void>,
        isolation: (any Actor)?
    ) -> RequestTask? {
        let queue = callbackQueue
        let handler = Handoff(value: elementHandler)
        return start(
            makeRequest,
            perform: { prepared in
                for try await element in try await self.stream(prepared, as: format) {
                    await Self.deliver(Handoff(value: element), to: handler, on: queue, isolation: isolation)
                }
            },
            isolation: isolation,
            resultHandler: completionHandler
        )
    }

    /// Runs `handler` with `element` on the caller's actor, or on `queue` when the caller had
    /// none, and returns once it has; a handler not yet run when the task is cancelled does not
    /// run.
    private static func deliver<Element>(
        _ element: Handoff<Element>,
        to handler: Handoff<(Element) -> Void>,
        on queue: DispatchQueue,
        isolation: (any Actor)?
    ) async {
        let isCancelled = Locked(false)
        await withTaskCancellationHandler {
            await CallbackDelivery.call(
                handler,
                with: { isCancelled.withLock { $0 } ? nil : element },
                on: queue,
                isolation: isolation
            )
        } onCancel: {
            isCancelled.withLock { $0 = true }
        }
    }
}
