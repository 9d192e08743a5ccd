import Foundation

/// A fully formed HTTP request, ready for a ``Transport`` to send.
public struct TransportRequest: Sendable, Hashable {
    /// Where a request's body comes from.
    public enum Body: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// The contents of a local file, streamed from disk as they are sent.
        case file(URL)
    }

    /// The request method.
    public var method: HTTPMethod
    /// The absolute URL, query string included.
    public var url: URL
    /// The request's header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Body?
    /// How long the request may wait for data before it fails with `URLError.timedOut`, or `nil`
    /// for the transport's default.
    public var timeoutInterval: TimeInterval?
    /// The longest timeout a transport applies, about 31 years: a longer one, an infinite one
    /// included, means no limit in practice (Linux's URLSession traps on one it cannot count in
    /// milliseconds).
    public static let longestTimeout: TimeInterval = 1_000_000_000
    /// Receives the transfer's progress, if anyone is interested.
    public var progress: ProgressObserver?
    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL, query string included.
    ///   - headers: The header fields.
    ///   - body: The body, if any.
    ///   - timeoutInterval: The idle timeout, or `nil` for the transport's default.
    ///   - progress: Receives the transfer's progress.
    public init(
        method: HTTPMethod,
        url: URL,
        headers: HTTPHeaders = [:],
        body: Body? = nil,
        timeoutInterval: TimeInterval? = nil,
        progress: ProgressObserver? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.progress = progress
    }

    /// The size of the body in bytes, or `nil` when there is no body or a file body's size cannot
    /// be read.
    public var bodySize: Int64? {
        switch body {
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            return FileManager.default.sizeOfItem(at: url)
        case nil:
            return nil
        }
    }

    /// The body's bytes, reading a file body from disk.
    ///
    /// Useful in tests that inspect what was sent through a ``FakeTransport``.
    ///
    /// - Returns: The bytes, or `nil` when there is no body.
    /// - Throws: The file system's error if a file body cannot be read.
    public func bodyData() throws -> Data? {
        switch body {
        case .data(let data): return data
        case .file(let url): return try Data(contentsOf: url)
        case nil: return nil
        }
    }

    /// Checks that a file body is there to be read, as a transport must before it starts sending:
    /// given a directory, Linux's URLSession sends nothing and waits until the request times out;
    /// a device such as `/dev/zero` never ends, and a named pipe may wait forever for a writer.
    ///
    /// - Throws: ``unreadableFileBody(because:)`` for a file body that is missing, a directory,
    ///   not a regular file (after following symbolic links), or not readable.
    package func checkFileBody() throws {
        guard case .file(let file) = body else { return }
        var isDirectory: ObjCBool = false
        let reason: any Error
        if !FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) {
            reason = CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: file.path])
        } else if isDirectory.boolValue {
            reason = CocoaError(
                .fileReadUnknown,
                userInfo: [NSFilePathErrorKey: file.path, NSUnderlyingErrorKey: POSIXError(.EISDIR) as NSError]
            )
        } else if let notRegular = Self.reasonIfNotRegular(file) {
            reason = notRegular
        } else if !FileManager.default.isReadableFile(atPath: file.path) {
            reason = CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: file.path])
        } else {
            return
        }
        throw unreadableFileBody(because: reason)
    }

    /// Why `file`, which exists and is not a directory, cannot be sent as a body: it is not a
    /// regular file after following symbolic links (a device, a pipe or a socket), or its type
    /// cannot be read; `nil` for a regular file.
    private static func reasonIfNotRegular(_ file: URL) -> (any Error)? {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path)
        } catch {
            return error
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            return CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSFilePathErrorKey: file.path,
                    NSLocalizedFailureReasonErrorKey:
                        "The file is not a regular file (it is a device, a pipe or a socket).",
                ]
            )
        }
        return nil
    }

    /// The error for a file body that cannot be read: `URLError(.fileDoesNotExist)`, as
    /// `URLSession` reports a missing one, with the file system's reason as its
    /// `NSUnderlyingErrorKey`.
    ///
    /// - Parameter reason: Why the file cannot be read.
    /// - Returns: The error.
    package func unreadableFileBody(because reason: any Error) -> URLError {
        URLError(
            .fileDoesNotExist,
            userInfo: [
                NSUnderlyingErrorKey: reason as NSError,
                NSURLErrorFailingURLErrorKey: url,
            ]
        )
    }

    /// Checks that the request can be sent as it is described; transports call it before they
    /// send anything.
    ///
    /// - Throws: ``RequestError/invalidMethod(_:)`` for a method that is not an RFC 9110 token,
    ///   ``RequestError/invalidHeaderName(_:)`` or ``RequestError/invalidHeaderValue(_:)`` for a
    ///   header that cannot be sent (see ``HTTPHeaders/validate()``), and
    ///   ``RequestError/invalidTimeout(_:)`` for a timeout that is zero, negative or NaN, and
    ///   ``RequestError/bodyNotAllowed(_:)`` for a `GET` or `HEAD` with a body (a file, or data
    ///   that is not empty), which `URLSession` refuses or leaves out.
    public func validate() throws {
        guard HTTPHeaders.isToken(method.rawValue) else {
            throw RequestError.invalidMethod(method.rawValue)
        }
        try headers.validate()
        if let timeoutInterval, !(timeoutInterval > 0) {
            throw RequestError.invalidTimeout(timeoutInterval)
        }
        if hasContent, method == .get || method == .head {
            throw RequestError.bodyNotAllowed(method.rawValue)
        }
    }

    /// Whether the request has a body that `URLSession` sends: a file, or data that is not empty.
    private var hasContent: Bool {
        switch body {
        case .data(let data): !data.isEmpty
        case .file: true
        case nil: false
        }
    }
}
