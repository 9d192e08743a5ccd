import Foundation
import KiloTransport

/// Calls that Kilo refuses, with a message that says what to write: a trailing closure given to
/// an `async` `invoke` or `download` that can only be a progress handler, and one element handler
/// given to `stream` without a completion handler.
///
/// The `async` methods take their progress handler by name (``ProgressHandler``), so a trailing
/// closure never lands in a parameter the caller did not name: `{ result in … }` is the callback
/// method's result handler, in any context. A closure that reads a ``TransferProgress`` fits no
/// method; these declarations catch it, so that the compiler names the fix instead of a type
/// mismatch.
extension WebServiceProxy {
    /// Refused: a trailing closure given to an `async` `invoke` is never its progress handler.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path.
    ///   - arguments: The arguments.
    ///   - content: A request body.
    ///   - contentType: The body's media type.
    ///   - progress: A progress handler, given as a trailing closure.
    /// - Throws: Nothing: the call does not compile.
    @available(
        *,
        unavailable,
        message: "name the progress handler: progress: ProgressHandler { progress in … }"
    )
    public func invoke(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        _ progress: @escaping TransferProgress.Handler
    ) async throws {
        fatalError("unavailable")
    }

    /// Refused: a trailing closure given to an `async` `invoke` is never its progress handler.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path.
    ///   - arguments: The arguments.
    ///   - content: A request body.
    ///   - contentType: The body's media type.
    ///   - progress: A progress handler, given as a trailing closure.
    /// - Returns: Nothing: the call does not compile.
    /// - Throws: Nothing: the call does not compile.
    @available(
        *,
        unavailable,
        message: "name the progress handler: progress: ProgressHandler { progress in … }"
    )
    public func invoke<T: Decodable>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        _ progress: @escaping TransferProgress.Handler
    ) async throws -> T {
        fatalError("unavailable")
    }

    /// Refused: a trailing closure given to an `async` `download` is never its progress handler.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path.
    ///   - arguments: The arguments.
    ///   - destination: The file to write.
    ///   - progress: A progress handler, given as a trailing closure.
    /// - Returns: Nothing: the call does not compile.
    /// - Throws: Nothing: the call does not compile.
    @available(
        *,
        unavailable,
        message: "name the progress handler: progress: ProgressHandler { progress in … }"
    )
    public func download(
        _ method: Method = .get,
        path: String,
        arguments: [String: Any] = [:],
        to destination: URL,
        _ progress: @escaping TransferProgress.Handler
    ) async throws -> HTTPHeaders {
        fatalError("unavailable")
    }

    /// Refused: a callback `stream` takes a completion handler after its element handler.
    ///
    /// Without this declaration the compiler takes a lone trailing closure for the JSON `body:`
    /// of the `async` `stream`, and reports that a closure is not `Encodable`.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path.
    ///   - arguments: The arguments.
    ///   - content: A request body.
    ///   - contentType: The body's media type.
    ///   - format: What an element is.
    ///   - elementHandler: An element handler, given alone.
    /// - Returns: Nothing: the call does not compile.
    @available(
        *,
        unavailable,
        message: """
            add completionHandler: { result in … } after the element handler, or read the async stream: \
            for try await element in try await proxy.stream(…)
            """
    )
    @discardableResult
    public func stream<Element>(
        _ method: Method,
        path: String,
        arguments: [String: Any] = [:],
        content: Data? = nil,
        contentType: String? = nil,
        as format: StreamFormat<Element>,
        _ elementHandler: @escaping (Element) -> Void
    ) -> RequestTask? {
        fatalError("unavailable")
    }
}
