import Foundation
import KiloTransport

/// A parsed `Content-Type` value, such as `text/plain; charset=utf-8`.
///
/// Type, subtype and parameter names are compared without regard to case.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type, lowercased: `text` in `text/plain`.
    public let type: String
    /// The subtype, lowercased: `plain` in `text/plain`.
    public let subtype: String
    /// The parameters, names lowercased and quotes removed from values.
    public let parameters: [String: String]

    /// Parses a `Content-Type` header value; fails if the value does not start with `type/subtype`.
    ///
    /// Type and subtype are tokens (RFC 9110 §5.6.2) with nothing between them and the slash, as
    /// browsers parse them: `text / html` and `text/html, text/plain` are not media types.
    ///
    /// - Parameter string: The header value.
    public init?(_ string: String) {
        var pieces = string.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let essence = pieces.next() else { return nil }
        let names = Self.trimmed(essence).split(separator: "/", maxSplits: 1).map(String.init)
        // Tokens before lowercasing: "\u{212A}" (KELVIN SIGN) is not one, but lowercases to "k".
        guard names.count == 2, HTTPHeaders.isToken(names[0]), HTTPHeaders.isToken(names[1]) else { return nil }
        type = names[0].lowercased()
        subtype = names[1].lowercased()
        var parameters: [String: String] = [:]
        while let piece = pieces.next() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = Self.trimmed(pair[0]).lowercased()
            var value = Self.trimmed(pair[1])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            parameters[name] = value
        }
        self.parameters = parameters
    }

    /// `text` without the spaces and tabs around it: HTTP's optional white space (RFC 9110
    /// §5.6.3), not Unicode's, so that `text/html` padded with U+3000 is not a media type.
    private static func trimmed(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// Whether this is a `text/*` type.
    public var isText: Bool { type == "text" }

    /// Whether this is JSON: `application/json` or a `+json` suffix such as `application/problem+json`.
    public var isJSON: Bool {
        (type == "application" && subtype == "json") || subtype.hasSuffix("+json")
    }

    /// The string encoding named by the `charset` parameter, or `nil` when there is none or it
    /// is not one Foundation decodes.
    ///
    /// The names are the IANA charset names and their common aliases, in any case: the Unicode
    /// encodings, ASCII, ISO-8859-1 and -2, Windows-1250 to -1254, Shift_JIS, EUC-JP and
    /// ISO-2022-JP.
    public var charset: String.Encoding? {
        guard let name = parameters["charset"]?.lowercased() else { return nil }
        return Self.charsets[name]
    }

    /// Charset names, lowercased, and the encodings they name.
    private static let charsets: [String: String.Encoding] = [
        "utf-8": .utf8, "utf8": .utf8, "unicode-1-1-utf-8": .utf8,
        "us-ascii": .ascii, "ascii": .ascii,
        "iso-8859-1": .isoLatin1, "latin1": .isoLatin1, "iso8859-1": .isoLatin1, "iso_8859-1": .isoLatin1,
        "l1": .isoLatin1,
        "iso-8859-2": .isoLatin2, "latin2": .isoLatin2, "iso8859-2": .isoLatin2, "iso_8859-2": .isoLatin2,
        "l2": .isoLatin2,
        "utf-16": .utf16, "utf-16be": .utf16BigEndian, "utf-16le": .utf16LittleEndian,
        "utf-32": .utf32, "utf-32be": .utf32BigEndian, "utf-32le": .utf32LittleEndian,
        "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250,
        "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
        "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252,
        "windows-1253": .windowsCP1253, "cp1253": .windowsCP1253,
        "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254,
        "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "x-sjis": .shiftJIS,
        "ms_kanji": .shiftJIS, "csshiftjis": .shiftJIS,
        "euc-jp": .japaneseEUC, "x-euc-jp": .japaneseEUC,
        "iso-2022-jp": .iso2022JP, "csiso2022jp": .iso2022JP,
    ]

    /// The type as `type/subtype`, followed by its parameters in name order.
    public var description: String {
        ([type + "/" + subtype] + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: "; ")
    }
}
