import Foundation
import KiloCore

/// What `LineParser` must make of a whole body: each line as text, in order, then the line the
/// body ended inside; a line of more than `limit` bytes, or one that is not UTF-8, ends it with
/// that line's `StreamElementError`.
struct TextLinesModel: Equatable {
    var lines: [String] = []
    var error: StreamElementError?
    var lineCount = 0

    init() {}

    init(_ body: [UInt8], limit: Int) {
        error = Lines(body).walk(limit: limit) { line, number in
            guard let text = String(validating: line, as: UTF8.self) else { return .invalidUTF8(line: number) }
            lines.append(text)
            lineCount = number
            return nil
        }
    }

    /// What `LineParser` makes of the same body, fed in `chunks`.
    static func parsed(_ chunks: [Data], limit: Int) -> TextLinesModel {
        var outcome = TextLinesModel()
        var parser = LineParser(maximumLineLength: limit)
        outcome.error = chunks.feed(
            "LineParser",
            { try parser.append($0) { outcome.lines.append($0) } },
            finish: { try parser.finish { outcome.lines.append($0) } }
        )
        outcome.lineCount = outcome.error == nil ? parser.lineCount : 0
        return outcome
    }

    static func == (lhs: TextLinesModel, rhs: TextLinesModel) -> Bool {
        lhs.lines == rhs.lines && lhs.error == rhs.error && (lhs.error != nil || lhs.lineCount == rhs.lineCount)
    }
}

/// Any JSON value, for JSON Lines bodies of any shape.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// What `JSONLinesParser` must make of a whole body: the value of each line that holds more
/// than spaces and tabs, then of the line the body ended inside; a line of more than `limit`
/// bytes, or one that does not decode, ends it with that line's `StreamElementError`.
struct JSONLinesModel: Equatable {
    var values: [JSONValue] = []
    var error: StreamElementError?

    init() {}

    init(_ body: [UInt8], limit: Int) {
        error = Lines(body).walk(limit: limit) { line, number in
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return nil }
            do {
                values.append(try JSONDecoder().decode(JSONValue.self, from: Data(line)))
                return nil
            } catch {
                return .undecodableJSON(line: number, underlyingError: error)
            }
        }
    }

    /// What `JSONLinesParser` makes of the same body, fed in `chunks`.
    static func parsed(_ chunks: [Data], limit: Int) -> JSONLinesModel {
        var outcome = JSONLinesModel()
        var parser = JSONLinesParser(JSONValue.self, maximumLineLength: limit)
        outcome.error = chunks.feed(
            "JSONLinesParser",
            { try parser.append($0) { outcome.values.append($0) } },
            finish: { try parser.finish { outcome.values.append($0) } }
        )
        return outcome
    }
}
