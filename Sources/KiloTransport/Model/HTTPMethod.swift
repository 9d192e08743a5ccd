/// An HTTP request method.
///
/// The common methods are static members, so call sites read `.get` or `.post`; any other
/// method can be made from its name.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method's name as sent on the wire, such as `GET`.
    public let rawValue: String

    /// Creates a method from its name.
    ///
    /// - Parameter rawValue: The method's name; it is uppercased.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// `GET`: read a resource; arguments go in the query string.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: submit arguments in the body, as a form.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: change part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET`, without a response body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: ask which methods a resource allows.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// The method's name.
    public var description: String { rawValue }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        [.get, .put, .delete, .head, .options].contains(self)
    }
}
