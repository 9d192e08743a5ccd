import Foundation

/// Checks that an encoder's output is JSON before it is sent.
///
/// `JSONEncoder` refuses a `Double` or `Float` that is not finite, but writes a `Decimal` that is
/// not a number as a bare `NaN` (whatever its `nonConformingFloatEncodingStrategy`), and a custom
/// `encode(to:)` can reach the same path: the body `{"price":NaN}` is not JSON, and a server
/// rejects it, or worse, reads it some way of its own. The validator reads the encoded bytes once:
/// outside strings, every token must be `true`, `false`, `null` or a number as RFC 8259 spells
/// it. (The structure, braces, brackets, commas and colons, is the encoder's own and always
/// sound, so it is not checked again.)
package enum JSONValidator {
    /// Throws unless every bare token in `json` (outside strings) is a JSON literal or number.
    ///
    /// - Parameter json: An encoder's output.
    /// - Throws: `EncodingError.invalidValue` with the token at fault as its value, and the
    ///   coding path of the value that wrote it (`["items", 2, "price"]`), for a token that is
    ///   not JSON or a string that does not end.
    package static func validate(_ json: Data) throws {
        try json.withUnsafeBytes { bytes in try validate(bytes) }
    }

    /// Where the scanner is: in an object, after its last key (`nil` until the key is read), or
    /// in an array, at the index of its current element.
    private enum Level {
        case object(key: Range<Int>?)
        case array(index: Int)
    }

    private static func validate(_ bytes: UnsafeRawBufferPointer) throws {
        var levels: [Level] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else {
                    throw invalidValue(bytes, start..<bytes.count, levels, "a string that does not end")
                }
                index += 1
                if case .object(key: nil) = levels.last {
                    levels[levels.count - 1] = .object(key: start..<index)
                }
            case UInt8(ascii: "{"):
                levels.append(.object(key: nil))
                index += 1
            case UInt8(ascii: "["):
                levels.append(.array(index: 0))
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = levels.popLast()
                index += 1
            case UInt8(ascii: ","):
                switch levels.last {
                case .array(let element): levels[levels.count - 1] = .array(index: element + 1)
                case .object: levels[levels.count - 1] = .object(key: nil)
                case nil: break
                }
                index += 1
            case UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            default:
                let start = index
                while index < bytes.count, !isDelimiter(bytes[index]) {
                    index += 1
                }
                let token = bytes[start..<index]
                guard isLiteral(token) || isNumber(token) else {
                    throw invalidValue(bytes, start..<index, levels, "a token that is not a JSON literal or number")
                }
            }
        }
    }

    /// Whether a byte ends a bare token.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "["),
            UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"),
            UInt8(ascii: "\r"):
            true
        default:
            false
        }
    }

    private static func isLiteral(_ token: Slice<UnsafeRawBufferPointer>) -> Bool {
        token.elementsEqual("true".utf8) || token.elementsEqual("false".utf8) || token.elementsEqual("null".utf8)
    }

    /// Whether `token` is a number as RFC 8259 spells it: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?`.
    private static func isNumber(_ token: Slice<UnsafeRawBufferPointer>) -> Bool {
        var index = token.startIndex
        func skipDigits() -> Bool {
            let start = index
            while index < token.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[index]) {
                index += 1
            }
            return index > start
        }
        if index < token.endIndex, token[index] == UInt8(ascii: "-") {
            index += 1
        }
        if index < token.endIndex, token[index] == UInt8(ascii: "0") {
            index += 1
        } else if !skipDigits() {
            return false
        }
        if index < token.endIndex, token[index] == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { return false }
        }
        if index < token.endIndex, token[index] == UInt8(ascii: "e") || token[index] == UInt8(ascii: "E") {
            index += 1
            if index < token.endIndex, token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() else { return false }
        }
        return index == token.endIndex
    }

    /// The error for the text at `range`, with the coding path that `levels` lead to.
    private static func invalidValue(
        _ bytes: UnsafeRawBufferPointer,
        _ range: Range<Int>,
        _ levels: [Level],
        _ what: String
    ) -> EncodingError {
        let token = String(decoding: bytes[range], as: UTF8.self)
        let path = levels.map { level -> any CodingKey in
            switch level {
            case .object(let key?): PathKey(stringValue: keyText(bytes[key]))
            case .object(nil): PathKey(stringValue: "")
            case .array(let index): PathKey(intValue: index)
            }
        }
        let description =
            "The encoder wrote \(token) at byte \(range.lowerBound), \(what), so the body is not JSON. "
            + "(JSONEncoder writes a Decimal that is not a number as NaN.)"
        return .invalidValue(token, EncodingError.Context(codingPath: path, debugDescription: description))
    }

    /// A key's text, from its JSON string (quotes and escapes and all).
    private static func keyText(_ string: Slice<UnsafeRawBufferPointer>) -> String {
        do {
            return try JSONDecoder().decode(String.self, from: Data(string))
        } catch {
            // Not reached with JSONEncoder's strings; the raw text still names the key.
            return String(decoding: string.dropFirst().dropLast(), as: UTF8.self)
        }
    }

    /// A coding path element: an object's key or an array's index.
    private struct PathKey: CodingKey {
        var stringValue: String
        var intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init(intValue: Int) {
            self.stringValue = "Index \(intValue)"
            self.intValue = intValue
        }
    }
}
