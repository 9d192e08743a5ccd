import Foundation

/// Writes text and bytes as words of a POSIX shell command, so that nothing in them is read as
/// shell syntax.
enum ShellQuoting {
    /// `text` as one shell word: as it is when it is only letters, digits, `-` and `_` (a
    /// method); otherwise in single quotes, each `'` written `'\''`; or, when it holds a
    /// control character (which a terminal may act on when the command is shown or pasted), as
    /// `"$(printf '…')"` with the escapes of ``printfFormat(_:)``, which every POSIX shell reads
    /// (dash has no `$'…'`). A command substitution drops trailing line feeds; a URL, method or
    /// header field that can be sent has none.
    static func word(_ text: String) -> String {
        if !text.isEmpty, text.utf8.allSatisfy({ isBare($0) }) {
            return text
        }
        guard text.unicodeScalars.contains(where: isControl) else {
            return singleQuoted(text)
        }
        return "\"$(printf " + printfFormat(Data(text.utf8)) + ")\""
    }

    /// `text` in single quotes, each `'` written `'\''`: every other character stands for
    /// itself, a line feed included.
    static func singleQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Whether `bytes` can be written in single quotes and read back byte for byte, even when the
    /// command is pasted into a terminal: UTF-8 with no control character but line feed and tab
    /// (a terminal turns a pasted carriage return into a line feed), not starting with `@`
    /// (which `--data-binary` reads as a file name), and short enough to be one argument
    /// (Linux refuses one over 128 KiB).
    static func canBeQuoted(_ bytes: Data) -> Bool {
        guard bytes.count <= 64 << 10, bytes.first != UInt8(ascii: "@"),
            let text = String(data: bytes, encoding: .utf8)
        else { return false }
        return !text.unicodeScalars.contains { isControl($0) && $0 != "\n" && $0 != "\t" }
    }

    /// A `printf` format, in single quotes, that writes `bytes` exactly: printable UTF-8 as it is,
    /// `\n`, `\r` and `\t` by name, `\\` and `%%`, and every other byte (a control character,
    /// NUL, or a byte that is not part of valid UTF-8) as a three-digit octal escape, which
    /// POSIX `printf` reads in its format.
    static func printfFormat(_ bytes: Data) -> String {
        var result = ""
        let bytes = [UInt8](bytes)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length = sequenceLength(bytes, at: index)
            if length > 1, let text = String(bytes: bytes[index..<index + length], encoding: .utf8),
                let scalar = text.unicodeScalars.first, !isControl(scalar)
            {
                result += text
                index += length
                continue
            }
            switch byte {
            case UInt8(ascii: "\n"): result += #"\n"#
            case UInt8(ascii: "\r"): result += #"\r"#
            case UInt8(ascii: "\t"): result += #"\t"#
            case UInt8(ascii: "\\"): result += #"\\"#
            case UInt8(ascii: "%"): result += "%%"
            case UInt8(ascii: "'"): result += #"'\''"#
            case UInt8(ascii: "-") where index == 0: result += #"\055"#  // not an option of printf
            case 0x20..<0x7F: result.unicodeScalars.append(Unicode.Scalar(byte))
            default: result += "\\" + octal(byte)
            }
            index += 1
        }
        return "'" + result + "'"
    }

    /// How many bytes the UTF-8 sequence that starts at `index` claims (1 for ASCII or a byte
    /// that starts none); whether they are valid is checked by decoding them.
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let length =
            switch bytes[index] {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 1
            }
        return index + length <= bytes.count ? length : 1
    }

    private static func isBare(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// C0 and C1 controls and DEL, and the line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private static func octal(_ byte: UInt8) -> String {
        String([byte >> 6, (byte >> 3) & 7, byte & 7].map { Character(String($0)) })
    }
}
