import Foundation
import KiloCore
import KiloTransport

/// Downloading a response body to a file, streamed, in bounded memory.
extension WebServiceProxy {
    /// The most bytes of an error response's body that a download keeps in its
    /// ``WebServiceError``.
    public static let downloadErrorBodyLimit = errorBodyLimit

    /// Downloads an operation's response body to a file.
    ///
    /// The body is streamed to a temporary file beside `destination`, which replaces
    /// `destination` only when the whole body has arrived with a 2xx status. On any failure,
    /// `destination` is left as it was and the temporary file is removed (after a deadline or a
    /// cancellation, which return at once, as soon as the transfer has stopped).
    ///
    /// - Parameters:
    ///   - method: The HTTP method; `GET` by default.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments, placed as for ``invoke(_:path:arguments:content:contentType:progress:)->()``.
    ///   - destination: The file to write.
    ///   - progress: Receives download progress, on a background thread; named only (see
    ///     ``ProgressHandler``).
    /// - Returns: The response's headers.
    /// - Throws: ``WebServiceError`` for a status outside 2xx (with at most
    ///   ``downloadErrorBodyLimit`` bytes of its body), the errors of the other `invoke` methods,
    ///   or the file system's error if `destination` cannot be written. A `destination` that is
    ///   not a file URL (`CocoaError.fileWriteUnsupportedScheme`), whose directory does not exist
    ///   (`CocoaError.fileNoSuchFile`), or that is a directory (`POSIXError.EISDIR`) fails at
    ///   once, and nothing is sent.
    @discardableResult
    public func download(
        _ method: Method = .get,
        path: String,
        arguments: [String: Any] = [:],
        to destination: URL,
        progress: ProgressHandler? = nil
    ) async throws -> HTTPHeaders {
        let prepared = try makeDownload(
            method,
            path: path,
            arguments: arguments,
            to: destination,
            progress: progress?.handler
        )
        return try await sendDownload(prepared)
    }

    /// Downloads an operation's response body to a file, with a callback.
    ///
    /// Once the body has replaced `destination`, the handler receives the headers even if the
    /// task is cancelled before the handler runs: the cancellation came too late to leave
    /// `destination` as it was.
    ///
    /// - Parameters:
    ///   - method: The HTTP method; `GET` by default.
    ///   - path: The operation's path, relative to ``baseURL``.
    ///   - arguments: The arguments.
    ///   - destination: The file to write.
    ///   - progress: Receives download progress, on a background thread.
    ///   - resultHandler: Receives the response's headers, or the error, on the caller's actor or
    ///     ``callbackQueue``.
    ///   - isolation: The caller's actor, where the handlers run (see ``callbackQueue``). Leave it out:
    ///     `nil` passed from an actor's code would run a handler written there off that actor.
    /// - Returns: The request's task, to cancel it; `nil` when bad input (a `destination` that
    ///   the async ``download(_:path:arguments:to:progress:)`` refuses at once, say) stopped it
    ///   being sent.
    @discardableResult
    public func download(
        _ method: Method = .get,
        path: String,
        arguments: [String: Any] = [:],
        to destination: URL,
        progress: TransferProgress.Handler? = nil,
        resultHandler: @escaping ResultHandler<HTTPHeaders>,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestTask? {
        start(
            { try makeDownload(method, path: path, arguments: arguments, to: destination, progress: progress) },
            perform: { try await self.sendDownload($0) },
            successIsFinal: true,
            isolation: isolation,
            resultHandler: resultHandler
        )
    }

    private func makeDownload(
        _ method: Method,
        path: String,
        arguments: [String: Any],
        to destination: URL,
        progress: TransferProgress.Handler?
    ) throws -> PreparedRequest {
        try Self.checkDestination(destination)
        var prepared = try makeRequest(method, path: path, arguments: arguments, content: nil, progress: progress)
        prepared.consumption.destination = .file(destination, limit: prepared.limits.maximumDownloadSize)
        return prepared
    }

    /// Checks, before anything is sent, that a download can end in `destination`: a file URL,
    /// in a directory that exists, and not a directory itself. Otherwise the request would be
    /// sent (a `POST` would do its work), and the body received, only to fail at the end, with an
    /// error about a temporary file of Kilo's, or of URLSession's, in place of the server's own.
    ///
    /// - Throws: `CocoaError(.fileWriteUnsupportedScheme)` for a URL that is not a file URL,
    ///   `CocoaError(.fileNoSuchFile)` naming the directory when it is missing (or not a
    ///   directory), `POSIXError(.EISDIR)` when `destination` is a directory.
    private static func checkDestination(_ destination: URL) throws {
        guard destination.isFileURL else {
            throw CocoaError(.fileWriteUnsupportedScheme, userInfo: [NSURLErrorKey: destination])
        }
        let directory = destination.deletingLastPathComponent()
        guard isDirectory(directory) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path, NSURLErrorKey: directory])
        }
        // Not followed through a symbolic link: rename(2) replaces the link itself.
        guard !isDirectory(destination, followingLink: false) else {
            throw POSIXError(.EISDIR, userInfo: [NSFilePathErrorKey: destination.path])
        }
    }

    /// Whether `url` names a directory; with `followingLink`, a symbolic link to one counts.
    private static func isDirectory(_ url: URL, followingLink: Bool = true) -> Bool {
        guard followingLink else {
            // `attributesOfItem` describes a symbolic link itself; a missing item is no directory.
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return attributes?[.type] as? FileAttributeType == .typeDirectory
        }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Sends a download and returns the response's headers: the transport's reading of the body
    /// writes it beside the destination and renames it over the destination once it has all
    /// arrived (see `ResponseConsumption.Destination.file(_:limit:)`), so a failure leaves the destination as
    /// it was; an error response's body is kept in the ``WebServiceError`` instead.
    private func sendDownload(_ prepared: PreparedRequest) async throws -> HTTPHeaders {
        try await send(prepared) { response in
            guard response.isSuccess else {
                throw WebServiceError(statusCode: response.statusCode, headers: response.headers, body: response.body)
            }
            return response.headers
        }
    }
}
