import Foundation

/// A response whose status and headers have arrived, and whose body arrives as it is read.
///
/// What every ``Transport`` returns from ``Transport/stream(_:)``. Read the ``body`` once, to its
/// end, or cancel it; ``Transport/send(_:)`` collects it for you.
public struct StreamedResponse: Sendable {
    /// The status and headers, with an empty body.
    private var head: TransportResponse
    /// The body, as it arrives.
    public var body: ResponseBody

    /// Creates a response from its parts.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The header fields.
    ///   - body: The body.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: ResponseBody = ResponseBody()) {
        self.head = TransportResponse(statusCode: statusCode, headers: headers)
        self.body = body
    }

    /// Creates a streamed response of a response already in memory: the two-line change that
    /// turns a transport written for Kilo's `send(_:)` into one that streams (see
    /// Docs/Transports.md).
    ///
    /// - Parameter response: The whole response.
    public init(_ response: TransportResponse) {
        var head = response
        head.body = Data()
        self.head = head
        self.body = ResponseBody(response.body)
    }

    /// Creates a response whose headers are made when first read (see
    /// ``TransportResponse/init(statusCode:body:makeHeaders:)``).
    init(head: TransportResponse, body: ResponseBody) {
        self.head = head
        self.body = body
    }

    /// The HTTP status code, such as 200 or 404.
    public var statusCode: Int {
        get { head.statusCode }
        set { head.statusCode = newValue }
    }

    /// The response's header fields.
    public var headers: HTTPHeaders {
        get { head.headers }
        set { head.headers = newValue }
    }

    /// Whether the status code is in the 2xx range.
    public var isSuccess: Bool {
        head.isSuccess
    }

    /// The size of the body as the response announces it, or `nil` when it does not: its
    /// `Content-Length`, unless the body has a content coding, whose length counts coded bytes
    /// while the body's chunks are decoded.
    public var expectedBodySize: Int64? {
        if let coding = headers["Content-Encoding"].map(Self.trimmed), !coding.isEmpty,
            coding.lowercased() != "identity"
        {
            return nil
        }
        return headers["Content-Length"].flatMap { Int64(Self.trimmed($0)) }
    }

    /// `value` without the spaces and tabs HTTP allows around a field's value (not with
    /// Foundation's `trimmingCharacters(in:)`, which showed in a profile of every request).
    private static func trimmed(_ value: String) -> Substring {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = value.utf8.firstIndex(where: { !isBlank($0) }),
            let last = value.utf8.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return value[first...last]
    }

    /// The response with `body` in place of the stream.
    package func collected(_ body: Data) -> TransportResponse {
        var response = head
        response.body = body
        return response
    }
}
