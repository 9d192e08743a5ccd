import Foundation
import KiloTransport

/// Turns a ``TransportResponse`` into a value, or into the error it stands for.
///
/// Every function is pure: it looks only at the response it is given.
package enum ResponseMapper {
    /// One decoder for every response: its settings never change, and decoding is thread-safe.
    private static let decoder = JSONCoding.makeDecoder()

    /// Throws ``WebServiceError`` unless the response's status is in the 2xx range.
    package static func validate(_ response: TransportResponse) throws {
        guard response.isSuccess else {
            throw WebServiceError(statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
    }

    /// Checks the status, then decodes the body as JSON.
    ///
    /// An empty body decodes to `nil` when `T` is an optional type.
    ///
    /// - Throws: ``WebServiceError`` for a status outside 2xx; `DecodingError` for a body that
    ///   is not a valid `T`.
    package static func decoded<T: Decodable>(from response: TransportResponse) throws -> T {
        try decoded(from: response, using: decoder)
    }

    /// Checks the status, then decodes the body as JSON with `decoder`.
    ///
    /// An empty body decodes to `nil` when `T` is an optional type.
    ///
    /// - Throws: ``WebServiceError`` for a status outside 2xx; `DecodingError` for a body that
    ///   is not a valid `T`.
    package static func decoded<T: Decodable>(
        from response: TransportResponse,
        using decoder: JSONDecoder
    ) throws -> T {
        try validate(response)
        if response.body.isEmpty, let optional = T.self as? any OptionalDecodable.Type,
            let none = optional.emptyBodyValue as? T
        {
            return none
        }
        return try decoder.decode(T.self, from: response.body)
    }

    /// Checks the status, then hands the body and its content type to `handler`.
    ///
    /// - Throws: ``WebServiceError`` for a status outside 2xx, or what `handler` throws.
    package static func value<T>(
        from response: TransportResponse,
        handler: (_ content: Data, _ contentType: String?, _ headers: HTTPHeaders) throws -> T
    ) throws -> T {
        try validate(response)
        let headers = response.headers
        return try handler(response.body, headers["Content-Type"], headers)
    }
}

/// An optional type, whose `nil` stands for an empty response body.
package protocol OptionalDecodable {
    /// The type's `nil`.
    static var emptyBodyValue: Self { get }
}

extension Optional: OptionalDecodable where Wrapped: Decodable {
    package static var emptyBodyValue: Optional<Wrapped> { nil }
}
