import Foundation

/// The status, headers and body of an HTTP response.
public struct TransportResponse: Sendable, Hashable {
    /// The HTTP status code, such as 200 or 404.
    public var statusCode: Int
    /// The response's header fields.
    public var headers: HTTPHeaders
    /// The response body, exactly as received (after any content decoding such as gzip).
    public var body: Data

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The header fields.
    ///   - body: The body.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// Whether the status code is in the 2xx range.
    public var isSuccess: Bool {
        (200..<300).contains(statusCode)
    }
}
