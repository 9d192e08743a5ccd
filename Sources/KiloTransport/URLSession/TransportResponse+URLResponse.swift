import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransportResponse {
    /// Creates a response from an `HTTPURLResponse` and its body.
    ///
    /// The header fields are converted from the response's `allHeaderFields` only when they are
    /// first read: a decoded result never needs them.
    ///
    /// A field that `allHeaderFields` holds under several spellings of its name (Linux's
    /// URLSession keeps `X-Id` and `x-id` apart) becomes one field whose values are joined with
    /// `", "`, as a repeated field's are, in the order of their names' spellings.
    ///
    /// - Parameters:
    ///   - response: The response's status and headers.
    ///   - body: The body.
    public init(_ response: HTTPURLResponse, body: Data) {
        self.init(statusCode: response.statusCode, body: body) {
            var headers = HTTPHeaders()
            for (name, value) in response.allHeaderFields {
                let field = Self.field(name: name, value: value)
                guard headers[field.name] == nil else {
                    return Self.joiningSpellings(of: response.allHeaderFields)
                }
                headers[field.name] = field.value
            }
            return headers
        }
    }

    /// The fields of `allHeaderFields`, some of whose names come in several spellings: in name
    /// order, the value of each later spelling joined to the first's with `", "`.
    private static func joiningSpellings(of allHeaderFields: [AnyHashable: Any]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for field in allHeaderFields.map(field).sorted(by: { $0.name < $1.name }) {
            if let value = headers[field.name] {
                headers[field.name] = value + ", " + field.value
            } else {
                headers[field.name] = field.value
            }
        }
        return headers
    }

    /// One field of `allHeaderFields`.
    private static func field(name: AnyHashable, value: Any) -> HTTPHeaders.Field {
        HTTPHeaders.Field(
            name: name.base as? String ?? String(describing: name),
            value: value as? String ?? String(describing: value)
        )
    }
}
