/// Percent-encoding against RFC 3986's unreserved set, in one pass over UTF-8 bytes.
enum PercentEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Whether a byte may stand for itself: `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`, `_` and `~`.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Appends `text` to `output`, every byte outside the unreserved set written as `%XX`.
    static func append(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// Encodes name–value pairs as `name=value&name=value`.
    static func encode(_ pairs: [FlatArgument]) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(pairs.count * 16)
        for (index, pair) in pairs.enumerated() {
            guard case .text(let value) = pair.value else {
                throw ArgumentEncodingError.fileNotAllowed(pair.name)
            }
            if index > 0 {
                output.append(UInt8(ascii: "&"))
            }
            append(pair.name, to: &output)
            output.append(UInt8(ascii: "="))
            append(value, to: &output)
        }
        return output
    }
}
