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

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL, query string included.
    ///   - headers: The header fields.
    ///   - body: The body, if any.
    ///   - timeoutInterval: The idle timeout, or `nil` for the transport's default.
    public init(
        method: HTTPMethod,
        url: URL,
        headers: HTTPHeaders = [:],
        body: Body? = nil,
        timeoutInterval: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
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
}
