import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// Creates a `URLRequest` with a transport request's method, URL, headers and timeout.
    ///
    /// A ``TransportRequest/Body/data(_:)`` body becomes `httpBody`; a file body is left for the
    /// task to stream. A request with a body but no `Content-Type` is labelled
    /// `application/octet-stream`, since Linux's URLSession would otherwise call it a form. A
    /// header whose value holds a carriage return, line feed or NUL is left out, as
    /// `setValue(_:forHTTPHeaderField:)` leaves it out (``HTTPHeaders/validate()`` refuses it).
    /// So are `Content-Length` and `Transfer-Encoding`: the session frames the body itself, as
    /// `AsyncHTTPClientTransport` does. Linux's URLSession would send a given one as it is, and
    /// one that disagrees with the body cuts the body short, or leaves the server waiting for
    /// bytes that never come, or makes it read the rest of the body as the next request on the
    /// connection.
    /// A timeout of more than about 31 years, an infinite one included, is given as 31 years.
    ///
    /// - Parameter request: The request to convert.
    public init(_ request: TransportRequest) {
        self.init(request, headerNames: nil)
    }

    /// Creates a `URLRequest` from a transport request, as ``init(_:)`` does, with header names
    /// capitalized through `headerNames` when given.
    ///
    /// - Parameters:
    ///   - request: The request to convert.
    ///   - headerNames: Remembers the capitalized names of a transport's requests.
    init(_ request: TransportRequest, headerNames: HeaderNameCase?) {
        self.init(url: request.url)
        if request.method != .get {  // a new URLRequest's method; setting it again costs
            httpMethod = request.method.rawValue
        }
        // All at once, with the values checked here on every platform rather than left to
        // setValue(_:forHTTPHeaderField:), which Linux runs one costly field at a time.
        var fields: [String: String] = [:]
        for field in request.headers where HTTPHeaders.canBeSent(field.value) && !Self.isFraming(field.name) {
            fields[headerNames?.capitalized(field.name) ?? field.name.capitalized] = field.value
        }
        if !fields.isEmpty {
            allHTTPHeaderFields = fields
        }
        if let timeoutInterval = request.timeoutInterval {
            self.timeoutInterval = min(timeoutInterval, TransportRequest.longestTimeout)
        }
        if request.body != nil, request.headers["Content-Type"] == nil {
            setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        }
        if case .data(let data) = request.body {
            httpBody = data
        }
    }

    /// The fields that say how the body is framed, which the session sets from the body.
    private static let framingFields: HTTPHeaders = ["Content-Length": "", "Transfer-Encoding": ""]

    /// Whether `name` is `Content-Length` or `Transfer-Encoding`, in any case.
    private static func isFraming(_ name: String) -> Bool {
        framingFields[name] != nil
    }
}
