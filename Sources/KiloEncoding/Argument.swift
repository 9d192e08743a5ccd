import Foundation

/// A value that can be sent as a request argument.
///
/// Arguments behave like the fields of an HTML form. ``QueryEncoder``, ``FormEncoder`` and
/// ``MultipartEncoder`` all turn them into name–value pairs the same way:
///
/// | Argument | Sent as |
/// | --- | --- |
/// | ``string(_:)`` | the text itself |
/// | ``integer(_:)``, ``number(_:)`` | the decimal digits (`42`, `1.5`); a non-finite number throws |
/// | ``boolean(_:)`` | `true` or `false` |
/// | ``date(_:)`` | milliseconds since 1 January 1970 UTC, as a whole number |
/// | ``file(_:)`` | a file part (multipart only; the other encoders throw) |
/// | ``list(_:)`` | one pair per element, all with the same name |
/// | ``undefined`` | nothing: the argument is skipped |
///
/// Literals work where an `Argument` is expected:
///
/// ```swift
/// let query = try QueryEncoder().encode(["q": "swift", "page": 2, "tags": ["a", "b"]])
/// // "page=2&q=swift&tags=a&tags=b"
/// ```
public enum Argument: Sendable, Hashable {
    /// A text value.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A floating-point number. It must be finite.
    case number(Double)
    /// A Boolean, sent as `true` or `false`.
    case boolean(Bool)
    /// A date, sent as whole milliseconds since 1 January 1970 UTC.
    case date(Date)
    /// A local file, sent as a file part of a multipart body.
    case file(URL)
    /// Several values for the same name, sent as one pair per element.
    case list([Argument])
    /// No value: the argument is left out of the request.
    case undefined
}

extension Argument: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)`` argument from a string literal.
    ///
    /// - Parameter value: The text.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension Argument: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)`` argument from an integer literal.
    ///
    /// - Parameter value: The number.
    public init(integerLiteral value: Int) {
        self = .integer(value)
    }
}

extension Argument: ExpressibleByFloatLiteral {
    /// Creates a ``number(_:)`` argument from a floating-point literal.
    ///
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) {
        self = .number(value)
    }
}

extension Argument: ExpressibleByBooleanLiteral {
    /// Creates a ``boolean(_:)`` argument from a Boolean literal.
    ///
    /// - Parameter value: The Boolean.
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension Argument: ExpressibleByArrayLiteral {
    /// Creates a ``list(_:)`` argument from an array literal.
    ///
    /// - Parameter elements: The values, sent in order under the same name.
    public init(arrayLiteral elements: Argument...) {
        self = .list(elements)
    }
}
