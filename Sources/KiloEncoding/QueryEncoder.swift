/// Encodes arguments as a URL query string.
///
/// Names and values are percent-encoded against RFC 3986's unreserved set (`A`–`Z`, `a`–`z`,
/// `0`–`9`, `-._~`), so `+`, `&`, `=`, `?`, `/`, spaces, non-ASCII text and emoji all reach
/// the server intact. Keys are sorted; a list becomes one pair per element.
///
/// ```swift
/// let query = try QueryEncoder().encode(["q": "a+b", "ids": [1, 2]])
/// // "ids=1&ids=2&q=a%2Bb"
/// ```
public struct QueryEncoder: Sendable {
    /// Creates a query encoder.
    public init() {}

    /// Encodes arguments as a query string, without the leading `?`.
    ///
    /// - Parameter arguments: The arguments to encode.
    /// - Returns: The query string; empty when there is nothing to send.
    /// - Throws: ``ArgumentEncodingError`` for an empty key, a non-finite number, a date too far
    ///   from 1970 to send as milliseconds, or a file.
    public func encode(_ arguments: [String: Argument]) throws -> String {
        String(decoding: try PercentEncoding.encode(FlatArgument.flatten(arguments)), as: UTF8.self)
    }
}
