import Foundation

extension Redaction {
    /// A JSON text as it may be shown: the value of each member whose name is secret
    /// (``isSecretName(_:)``), at any depth, replaced by ``replacement`` as a JSON string, an
    /// object or array value whole; everything else byte for byte as it was.
    ///
    /// The text is scanned, not parsed, so that a body that is not quite JSON is redacted too;
    /// a name written with escapes (`"api\u005Fkey"`) is decoded before it is matched.
    ///
    /// ```swift
    /// let body = Data(#"{"user": "ann", "password": "pw", "keys": [1, 2]}"#.utf8)
    /// Redaction.standard.redact(json: body)  // {"user": "ann", "password": "REDACTED", "keys": "REDACTED"}
    /// ```
    ///
    /// - Parameter json: The JSON text, in UTF-8.
    /// - Returns: The text, redacted.
    public func redact(json: Data) -> Data {
        guard !secretWords.isEmpty else { return json }
        let bytes = [UInt8](json)
        var result = [UInt8]()
        result.reserveCapacity(bytes.count)
        var key: Range<Int>?  // the string just read, which a `:` makes a member's name
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = Self.stringEnd(bytes, from: index)
                result += bytes[index..<end]
                key = index..<end
                index = end
                continue
            }
            result.append(byte)
            index += 1
            if byte == UInt8(ascii: ":"), let name = key {
                key = nil
                while index < bytes.count, Self.isSpace(bytes[index]) {
                    result.append(bytes[index])
                    index += 1
                }
                if index < bytes.count, isSecretName(Self.decodedString(bytes[name])) {
                    result += Array("\"\(replacement)\"".utf8)
                    index = Self.valueEnd(bytes, from: index)
                }
            } else if !Self.isSpace(byte) {
                key = nil
            }
        }
        return Data(result)
    }

    /// The index just past the string that starts with the `"` at `start`, or the end.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index just past the value that starts at `start`: a string, an object or array with
    /// all it holds, or a number or literal up to the next `,`, `}`, `]` or space.
    private static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = stringEnd(bytes, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, !",}]".utf8.contains(bytes[index]), !isSpace(bytes[index]) {
                index += 1
            }
            return index
        }
    }

    /// A JSON string token's text, its escapes decoded; its bytes between the quotes when it
    /// does not decode.
    private static func decodedString(_ token: ArraySlice<UInt8>) -> String {
        if let value = try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed) as? String {
            return value
        }
        return String(decoding: token.dropFirst().prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
