/// HTTP header fields whose names are matched without regard to case.
///
/// Servers and platforms differ in how they capitalize header names (Linux's URLSession
/// capitalizes them, HTTP/2 lowercases them), so Kilo never compares names exactly:
///
/// ```swift
/// let headers: HTTPHeaders = ["Content-Type": "text/plain"]
/// headers["content-type"]  // "text/plain"
/// ```
///
/// Fields keep the order and spelling they were added with.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field's name, as it was given.
        public var name: String
        /// The field's value.
        public var value: String

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The field's name.
        ///   - value: The field's value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field] = []

    /// Creates empty headers.
    public init() {}

    /// Creates headers from a dictionary.
    ///
    /// - Parameter dictionary: Names and values. Names that differ only in case are merged; which
    ///   value wins is unspecified.
    public init(_ dictionary: [String: String]) {
        guard !dictionary.isEmpty else { return }  // most proxies add no headers: no sorting then
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            self[name] = value
        }
    }

    /// Creates headers from a dictionary literal.
    ///
    /// - Parameter elements: Names and values; a later name replaces an earlier one of any case.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            self[name] = value
        }
    }

    /// The value of the field with the given name, in any case; setting `nil` removes it.
    ///
    /// - Parameter name: The field's name.
    public subscript(name: String) -> String? {
        get {
            fields.first { Self.namesMatch($0.name, name) }?.value
        }
        set {
            if let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
                if let newValue {
                    fields[index].value = newValue
                } else {
                    fields.remove(at: index)
                }
            } else if let newValue {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as a dictionary keyed by name, as they were spelled.
    public var dictionary: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Adds or replaces every field of `other`.
    ///
    /// - Parameter other: The fields that win.
    public mutating func merge(_ other: HTTPHeaders) {
        for field in other.fields {
            self[field.name] = field.value
        }
    }

    /// Returns an iterator over the fields, in the order they were added.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The fields as `Name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Whether both hold the same fields, comparing names without regard to case.
    ///
    /// - Parameters:
    ///   - lhs: Some headers.
    ///   - rhs: Other headers.
    /// - Returns: `true` when every field of each is in the other with the same value.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count && lhs.fields.allSatisfy { rhs[$0.name] == $0.value }
    }

    /// Hashes the fields, names without regard to case or order.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for field in fields {
            var fieldHasher = Hasher()
            fieldHasher.combine(field.name.lowercased())
            fieldHasher.combine(field.value)
            combined ^= fieldHasher.finalize()
        }
        hasher.combine(combined)
    }

    /// Checks that every field can be sent: each name is an HTTP token, no value holds a
    /// carriage return, line feed or NUL, which could split one header into two, and all of them
    /// together fit in ``maximumSize``.
    ///
    /// - Throws: ``RequestError/invalidHeaderName(_:)``, ``RequestError/invalidHeaderValue(_:)``
    ///   or ``RequestError/headersTooLarge(_:)``.
    public func validate() throws {
        var size = 0
        for field in fields {
            guard Self.isToken(field.name) else {
                throw RequestError.invalidHeaderName(field.name)
            }
            guard Self.canBeSent(field.value) else {
                throw RequestError.invalidHeaderValue(field.name)
            }
            size += field.name.utf8.count + field.value.utf8.count + 4  // ": " and CRLF
            guard size <= Self.maximumSize else {
                throw RequestError.headersTooLarge(field.name)
            }
        }
    }

    /// The most bytes of header fields a request may carry: 64 KiB. Servers refuse far less
    /// (8 to 16 KiB is usual), and Linux's URLSession fails a request with about 1 MiB of them
    /// as out of memory after it has started.
    public static let maximumSize = 64 << 10

    /// Whether a value can be sent as it is: it holds no carriage return, line feed or NUL.
    static func canBeSent(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            !bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
        }
    }

    /// Whether a name is an RFC 9110 `token`: one or more `tchar`s.
    package static func isToken(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            let (low, high) = tokenMasks
            return !bytes.isEmpty
                && bytes.allSatisfy { byte in
                    switch byte {
                    case 0..<64: low & (1 << UInt64(byte)) != 0
                    case 64..<128: high & (1 << UInt64(byte - 64)) != 0
                    default: false
                    }
                }
        }
    }

    /// RFC 9110's `tchar`s, as bits: bit `b` of the first mask for byte `b` below 64, of the
    /// second for byte `64 + b`.
    private static let tokenMasks: (UInt64, UInt64) = {
        var masks: (UInt64, UInt64) = (0, 0)
        let tchars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        for byte in tchars.utf8 {
            if byte < 64 {
                masks.0 |= 1 << UInt64(byte)
            } else {
                masks.1 |= 1 << UInt64(byte - 64)
            }
        }
        return masks
    }()

    private static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        // Most names looked up differ in length: then the bytes are not read at all.
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    /// `name` with its ASCII letters in lowercase, and nothing else changed: two names are the
    /// same field, as this type matches them, exactly when their folded names are equal.
    package static func foldedName(_ name: String) -> String {
        String(decoding: name.utf8.map(asciiLowercase), as: UTF8.self)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
