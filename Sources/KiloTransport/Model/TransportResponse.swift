import Foundation

/// The status, headers and body of an HTTP response.
public struct TransportResponse: Sendable, Hashable, CustomReflectable {
    /// The HTTP status code, such as 200 or 404.
    public var statusCode: Int
    /// The response's header fields.
    public var headers: HTTPHeaders {
        get {
            deferredHeaders?.headers ?? fields
        }
        set {
            fields = newValue
            deferredHeaders = nil
        }
        _modify {
            if let deferredHeaders {
                fields = deferredHeaders.headers
                self.deferredHeaders = nil
            }
            yield &fields
        }
    }
    /// The response body, exactly as received (after any content decoding such as gzip).
    public var body: Data

    /// The header fields, unless ``deferredHeaders`` will make them.
    private var fields: HTTPHeaders
    /// Makes the header fields the first time they are read, when a transport gave them so.
    private var deferredHeaders: DeferredHeaders?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The header fields.
    ///   - body: The body.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.fields = headers
        self.body = body
    }

    /// Creates a response whose header fields are made the first time they are read, for a
    /// transport whose own form of them is costly to convert.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - body: The body.
    ///   - makeHeaders: Makes the header fields; it runs at most once, on the thread of whichever
    ///     copy of the response reads them first.
    init(statusCode: Int, body: Data, makeHeaders: @escaping @Sendable () -> HTTPHeaders) {
        self.statusCode = statusCode
        self.fields = HTTPHeaders()
        self.deferredHeaders = DeferredHeaders(makeHeaders)
        self.body = body
    }

    /// Whether the status code is in the 2xx range.
    public var isSuccess: Bool {
        (200..<300).contains(statusCode)
    }

    /// Whether both have the same status code, header fields and body.
    ///
    /// - Parameters:
    ///   - lhs: A response.
    ///   - rhs: Another response.
    /// - Returns: `true` when they are the same.
    public static func == (lhs: TransportResponse, rhs: TransportResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.body == rhs.body && lhs.headers == rhs.headers
    }

    /// The status code, header fields and body, for `dump` and test failure messages.
    public var customMirror: Mirror {
        Mirror(self, children: ["statusCode": statusCode, "headers": headers, "body": body])
    }

    /// Hashes the status code, header fields and body.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(headers)
        hasher.combine(body)
    }
}
