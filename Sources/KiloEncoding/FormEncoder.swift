import Foundation

/// Encodes arguments as an `application/x-www-form-urlencoded` body.
///
/// The body is the same text ``QueryEncoder`` makes: every byte outside RFC 3986's unreserved
/// set is percent-encoded (a space is `%20`, never `+`), which every form parser reads.
///
/// ```swift
/// var request = URLRequest(url: url)
/// request.httpMethod = "POST"
/// request.setValue(FormEncoder.contentType, forHTTPHeaderField: "Content-Type")
/// request.httpBody = try FormEncoder().encode(["name": "Ann", "tags": ["a", "b"]])
/// ```
public struct FormEncoder: Sendable {
    /// The media type of the bodies this encoder makes.
    public static let contentType = "application/x-www-form-urlencoded"

    /// Creates a form encoder.
    public init() {}

    /// Encodes arguments as a form body.
    ///
    /// - Parameter arguments: The arguments to encode.
    /// - Returns: The body bytes.
    /// - Throws: ``ArgumentEncodingError`` for an empty key, a non-finite number, a date too far
    ///   from 1970 to send as milliseconds, or a file.
    public func encode(_ arguments: [String: Argument]) throws -> Data {
        Data(try PercentEncoding.encode(FlatArgument.flatten(arguments)))
    }
}
