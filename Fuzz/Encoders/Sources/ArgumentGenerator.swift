import Foundation
import KiloEncoding

/// Reads fuzz bytes front to back. Past the end every read gives zero, so any input decodes.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = Array(bytes.prefix(count))
        bytes = bytes.dropFirst(count)
        return taken
    }

    /// Eight bytes, little-endian.
    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            value |= UInt64(byte()) << UInt64(shift)
        }
        return value
    }
}

/// Turns fuzz bytes into an argument dictionary.
///
/// Format (every field is optional; missing bytes read as zero):
///
/// - 1 byte: the number of keys, modulo 8. Then, per key, a text (the key) and an argument.
/// - text: 1 header byte; `length = header & 0x1F`, `mode = header >> 5`.
///   - modes 0–3: `length` raw bytes, decoded as UTF-8 with invalid sequences repaired (U+FFFD).
///   - modes 4–5: `length` scalars of 3 bytes each, modulo 0x110000 (a surrogate becomes U+FFFD).
///   - modes 6–7: `length` tokens, 1 byte each, indexing ``tokens`` (delimiters, line breaks,
///     combining marks, emoji, the multipart boundary).
/// - argument: 1 tag byte, modulo 11:
///   0, 1 string · 2 integer (8 bytes) · 3 number from any bit pattern (8 bytes; NaN, infinities,
///   subnormals) · 4 short decimal (4 + 1 bytes) · 5 Boolean (1 byte) · 6 date from whole
///   milliseconds (8 bytes) · 7 date from any `Double` seconds (8 bytes) · 8 undefined ·
///   9 list (1 count byte modulo 5, then elements; nesting stops at depth 2) · 10 file (a text).
struct ArgumentGenerator {
    /// The fixed multipart boundary; also a token, so values can contain it.
    static let boundary = "kilo-fuzz-boundary"

    /// Whole-millisecond dates lie within years -7999…9999 (±253,402,300,799,999 ms).
    static let maxWholeMilliseconds: Int64 = 253_402_300_799_999

    /// With `KILO_FUZZ_NARROW_DATES=1`, dates stay within 1935–2065: see Fuzz/README.md.
    static let isNarrowDates = ProcessInfo.processInfo.environment["KILO_FUZZ_NARROW_DATES"] == "1"

    static let tokens: [String] = [
        "&", "=", "+", "%", "%2", "%zz", "%25", "%22", "#", "?", "/", " ", ";", "\"", "\\", "[]",
        "\r", "\n", "\r\n", "\0", "\t", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}",
        "é", "e\u{301}", "\u{301}", "\u{FEFF}", "\u{FFFD}", "\u{7F}", "\u{80}", "\u{FF}", "😀",
        "👨‍👩‍👧", "🇺🇳", "\u{10FFFF}", "ß", "İ", "ﬃ", "a", "Z", "0", "-", ".", "_", "~", "--",
        boundary, "--\(boundary)", "--\(boundary)--", "Content-Disposition: form-data; name=\"x\"",
        "true", "1e308", "nan", "-0",
    ]

    private var input: FuzzInput

    init(_ bytes: [UInt8]) {
        input = FuzzInput(bytes)
    }

    mutating func arguments() -> [String: Argument] {
        var arguments: [String: Argument] = [:]
        for _ in 0..<(input.byte() % 8) {
            let key = text()
            arguments[key] = argument(depth: 0)
        }
        return arguments
    }

    private mutating func text() -> String {
        let header = input.byte()
        let length = Int(header & 0x1F)
        switch header >> 5 {
        case 0...3:
            return String(decoding: input.bytes(length), as: UTF8.self)
        case 4, 5:
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length {
                let value = (UInt32(input.byte()) | UInt32(input.byte()) << 8 | UInt32(input.byte()) << 16) % 0x11_0000
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
            return String(scalars)
        default:
            return (0..<length).map { _ in Self.tokens[Int(input.byte()) % Self.tokens.count] }.joined()
        }
    }

    private mutating func argument(depth: Int) -> Argument {
        switch input.byte() % 11 {
        case 0, 1:
            return .string(text())
        case 2:
            return .integer(Int(truncatingIfNeeded: input.uint64()))
        case 3:
            return .number(Double(bitPattern: input.uint64()))
        case 4:
            let digits = Int32(truncatingIfNeeded: input.uint64() & 0xFFFF_FFFF)
            return .number(Double(digits) / pow(10, Double(input.byte() % 8)))
        case 5:
            return .boolean(input.byte() & 1 == 1)
        case 6:
            return .date(wholeMillisecondDate(Int64(truncatingIfNeeded: input.uint64())))
        case 7:
            let seconds = Double(bitPattern: input.uint64())
            if Self.isNarrowDates && !(seconds.isFinite && abs(seconds) < 1e9) {
                return .date(Date(timeIntervalSince1970: 0))
            }
            return .date(Date(timeIntervalSince1970: seconds))
        case 8:
            return .undefined
        case 9:
            guard depth < 2 else { return .string(text()) }
            return .list((0..<(input.byte() % 5)).map { _ in argument(depth: depth + 1) })
        default:
            let name = text().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
            return .file(URL(fileURLWithPath: "/nonexistent-kilo-fuzz/" + name))
        }
    }

    private func wholeMillisecondDate(_ raw: Int64) -> Date {
        let range: ClosedRange<Int64> =
            Self.isNarrowDates
            ? -1_100_000_000_000...3_000_000_000_000
            : -Self.maxWholeMilliseconds...Self.maxWholeMilliseconds
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let milliseconds = range.lowerBound + Int64(UInt64(bitPattern: raw) % span)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
