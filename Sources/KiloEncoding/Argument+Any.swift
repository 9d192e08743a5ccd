import Foundation

extension Argument {
    /// Creates an argument from a value of any supported type.
    ///
    /// This is how Kilo reads an `arguments: [String: Any]` dictionary. The value's type decides
    /// the argument:
    ///
    /// - `Argument`: itself.
    /// - `String`, `Substring`, `UUID`, `Decimal`, and any other `LosslessStringConvertible`: ``string(_:)``.
    /// - `Bool`: ``boolean(_:)``.
    /// - Integer types: ``integer(_:)`` (an unsigned value above `Int.max` is sent as its digits).
    /// - `Double`, `Float` and the other floating-point types, such as `CGFloat`: ``number(_:)``.
    /// - `NSNumber`, as `JSONSerialization` makes it: by its stored kind (an `NSDecimalNumber`
    ///   as its exact digits, as a `Decimal`).
    /// - A `Decimal` or `NSDecimalNumber` that is not a number: ``number(_:)`` with `Double.nan`,
    ///   which the encoders reject with ``ArgumentEncodingError/nonFiniteNumber(_:)``.
    /// - `Date`: ``date(_:)``.
    /// - A file `URL`: ``file(_:)``; any other `URL`: its absolute string.
    /// - An array: ``list(_:)`` of its converted elements.
    /// - An optional or `AnyHashable`: the value it holds; `nil` and `NSNull`: ``undefined``.
    /// - Any other `RawRepresentable` (an enum with raw values, an `OptionSet`): its raw value,
    ///   converted by these same rules.
    /// - Any other `CustomStringConvertible` (an enum or a struct with a `description`):
    ///   ``string(_:)`` of its description, as Kilo 3.x sent every value.
    ///
    /// A raw value comes before a description: for `enum Day: String, CustomStringConvertible`
    /// the server gets the raw value, which is what such types are for.
    ///
    /// - Parameters:
    ///   - value: The value to convert.
    ///   - key: The argument's name, used in the error.
    /// - Throws: ``ArgumentEncodingError/unsupportedValue(_:type:)`` for a value whose text is no
    ///   value a server could read: a collection other than an array (a dictionary, a set,
    ///   `Data`, a range), or a value without a description of its own (a struct or class that
    ///   is not `CustomStringConvertible`, a closure, a tuple).
    public init(_ value: Any, forKey key: String) throws {
        if let common = Argument.commonValue(value) {
            self = common
        } else if let wrapper = value as? any ArgumentWrapper {
            // Unwrapped first: a cast from an optional to `Bool` would read a Foundation number
            // inside it, `1` say, as `true`.
            self = try wrapper.wrappedArgumentValue.map { try Argument($0, forKey: key) } ?? .undefined
        } else if let converted = Argument.scalar(value) {
            self = converted
        } else if let array = value as? [Any] {
            self = .list(try array.map { try Argument($0, forKey: key) })
        } else if let convertible = value as? any LosslessStringConvertible {
            self = .string(convertible.description)
        } else if let described = try Argument.describedValue(value, forKey: key) {
            self = described
        } else {
            throw ArgumentEncodingError.unsupportedValue(key, type: String(describing: type(of: value)))
        }
    }

    /// Converts every value of a dictionary with ``init(_:forKey:)``.
    ///
    /// - Parameter dictionary: Argument names and values of any supported type.
    /// - Returns: The typed arguments.
    /// - Throws: ``ArgumentEncodingError`` for the first value whose type is not supported.
    public static func arguments(from dictionary: [String: Any]) throws -> [String: Argument] {
        guard !dictionary.isEmpty else { return [:] }
        var arguments: [String: Argument] = [:]
        arguments.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            arguments[key] = try Argument(value, forKey: key)
        }
        return arguments
    }

    /// The argument for a value of the most common types, found by comparing its dynamic type
    /// instead of trying casts: a failed cast from `Any` is a search through the runtime's
    /// conformance tables, and the general route tries up to a dozen.
    private static func commonValue(_ value: Any) -> Argument? {
        switch ObjectIdentifier(type(of: value)) {
        case ObjectIdentifier(String.self): (value as? String).map(Argument.string)
        case ObjectIdentifier(Int.self): (value as? Int).map(Argument.integer)
        case ObjectIdentifier(Bool.self): (value as? Bool).map(Argument.boolean)
        case ObjectIdentifier(Double.self): (value as? Double).map(Argument.number)
        case ObjectIdentifier(Date.self): (value as? Date).map(Argument.date)
        case ObjectIdentifier([String].self): (value as? [String]).map { .list($0.map(Argument.string)) }
        case ObjectIdentifier([Int].self): (value as? [Int]).map { .list($0.map(Argument.integer)) }
        default: nil
        }
    }

    private static func scalar(_ value: Any) -> Argument? {
        // Test the dynamic type first: a cast to NSNumber would bridge every other value.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return fromFoundation(number)
        }
        switch value {
        case let argument as Argument: return argument
        case let string as String: return .string(string)
        case let substring as Substring: return .string(String(substring))
        case let bool as Bool: return .boolean(bool)
        case let int as Int: return .integer(int)
        case let date as Date: return .date(date)
        case let url as URL: return url.isFileURL ? .file(url) : .string(url.absoluteString)
        case let double as Double: return .number(double)
        case let float as Float: return shortestNumber(float)
        case let uuid as UUID: return .string(uuid.uuidString)
        case let decimal as Decimal: return fromDecimal(decimal)
        case is NSNull: return .undefined
        case let integer as any BinaryInteger:
            return Int(exactly: integer).map(Argument.integer) ?? .string("\(integer)")
        case let floating as any BinaryFloatingPoint: return shortestNumber(floating)  // CGFloat, Float16, Float80
        default: return nil
        }
    }

    /// The argument for a value that no type above matched: a raw value, or a description, as
    /// Kilo 3.x sent any value by its description; `nil` for a value that has no text a server
    /// could read.
    ///
    /// A collection's description (`["a": 1]`, `[1, 2]` for a set, `5 bytes` for `Data`) is
    /// never the value meant, so a collection has none; nor has a type without a
    /// `description` of its own, whose text would be its type name or its fields.
    private static func describedValue(_ value: Any, forKey key: String) throws -> Argument? {
        if let representable = value as? any RawRepresentable {
            return try Argument(representable.rawValue, forKey: key)
        }
        if value is any Sequence {
            return nil
        }
        if let described = value as? any CustomStringConvertible {
            return .string(described.description)
        }
        return nil
    }

    /// Reads a Foundation number, as `JSONSerialization` and Objective-C code make them, by
    /// its stored kind: a Boolean stays a Boolean, `0` and `1` stay numbers, a `Float` keeps its
    /// shortest digits and an `NSDecimalNumber` all of its own, as a `Decimal` does.
    private static func fromFoundation(_ number: NSNumber) -> Argument {
        if type(of: number) == type(of: NSNumber(value: true)) {
            return .boolean(number.boolValue)
        }
        if let decimal = number as? NSDecimalNumber {
            return fromDecimal(decimal.decimalValue)
        }
        let kind = String(cString: number.objCType)
        if kind == "f" {
            return shortestNumber(number.floatValue)
        }
        if kind == "d" {
            return .number(number.doubleValue)
        }
        if kind == "Q", number.uint64Value > UInt64(Int.max) {
            return .string(number.stringValue)
        }
        return .integer(number.intValue)
    }

    /// A decimal number as its exact digits; its NaN (what `Decimal` division by zero and
    /// `NSDecimalNumber(string:)` of text that is not a number give) as a non-finite number, which
    /// fails to encode as a `Double` NaN does, rather than as the text "NaN".
    private static func fromDecimal(_ decimal: Decimal) -> Argument {
        decimal.isNaN ? .number(.nan) : .string(decimal.description)
    }

    /// A number with the shortest digits that read back as `value`: 0.1 for `Float(0.1)`, where
    /// widening it to a `Double` would send 0.10000000149011612.
    private static func shortestNumber(_ value: some BinaryFloatingPoint) -> Argument {
        .number(Double("\(value)") ?? Double(value))
    }
}

/// A value that holds the one an argument is made of: an optional (a lookup in a `[String: T?]`
/// gives a `T??`) or an `AnyHashable`.
private protocol ArgumentWrapper {
    /// The value held; `nil` for an optional's `nil`.
    var wrappedArgumentValue: Any? { get }
}

extension Optional: ArgumentWrapper {
    fileprivate var wrappedArgumentValue: Any? { map { $0 } }
}

extension AnyHashable: ArgumentWrapper {
    fileprivate var wrappedArgumentValue: Any? { base }
}
