import Foundation
import KiloEncoding

/// One name–value pair the encoders should send, worked out from the arguments independently of
/// KiloEncoding's own flattening.
struct ExpectedPair: CustomStringConvertible {
    enum Value {
        /// Exactly this text.
        case text(String)
        /// A canonical integer within a millisecond or so of `near` (a date that is not a whole
        /// number of milliseconds, or too far out for Docs/Arguments.md's "exact" to be defined).
        case milliseconds(near: Double)
        /// A file part.
        case file(URL)
    }

    var name: String
    var value: Value

    var description: String { "\(String(reflecting: name)): \(value)" }

    /// Whether `text`, as sent or as decoded by a parser, is what this pair should carry.
    func matches(_ text: String) -> Bool {
        switch value {
        case .text(let expected):
            return Array(text.utf8) == Array(expected.utf8)
        case .milliseconds(let near):
            guard let sent = Int64(text), String(sent) == text else { return false }
            return abs(Double(sent) - near.rounded(.down)) <= max(1, 4 * near.ulp)
        case .file:
            return false
        }
    }
}

/// A failure an encoder may throw for some input.
enum ExpectedFailure: CustomStringConvertible {
    /// This exact error.
    case error(ArgumentEncodingError)
    /// Any ``ArgumentEncodingError`` about `key` (a date with no millisecond count in `Int64`:
    /// no error code exists for it yet).
    case anyError(key: String)
    /// An ``ArgumentEncodingError/unreadableFile(_:url:reason:)`` for this key and file.
    case unreadableFile(key: String, url: URL)

    var description: String {
        switch self {
        case .error(let error): return "\(error) (\(error.localizedDescription))"
        case .anyError(let key): return "any ArgumentEncodingError for key \(String(reflecting: key))"
        case .unreadableFile(let key, let url): return "unreadableFile(\(String(reflecting: key)), \(url.path))"
        }
    }

    func matches(_ thrown: any Error) -> Bool {
        guard let thrown = thrown as? ArgumentEncodingError else { return false }
        switch self {
        case .error(let error): return thrown == error
        case .anyError(let key): return thrown.key == key
        case .unreadableFile(let key, let url): return thrown.key == key && thrown.fileURL == url
        }
    }
}

/// What an encoder may do with some arguments: succeed with exactly ``pairs``, or throw one of
/// ``failures``. When ``isUnspecified``, only "no crash" is checked.
struct Expectation {
    var pairs: [ExpectedPair]?
    var failures: [ExpectedFailure] = []
    var isUnspecified = false

    static func failure(_ failure: ExpectedFailure) -> Expectation {
        Expectation(pairs: nil, failures: [failure])
    }

    static let unspecified = Expectation(pairs: nil, isUnspecified: true)

    /// The contract of Docs/Arguments.md, shared by all three encoders: keys sorted by their
    /// UTF-8 bytes, an empty key throws (before anything else, as it sorts first), a list gives
    /// one pair per element, undefined is skipped, a non-finite number throws.
    static func flattening(_ arguments: [String: Argument]) -> Expectation {
        if arguments[""] != nil {
            return .failure(.error(.emptyKey))
        }
        var pairs: [ExpectedPair] = []
        for key in arguments.keys.sorted(by: precedesInUTF8) {
            if let stop = append(arguments[key]!, named: key, to: &pairs) {
                return stop
            }
        }
        return Expectation(pairs: pairs)
    }

    /// Query strings and form bodies: as ``flattening(_:)``, and a file throws.
    static func query(_ arguments: [String: Argument]) -> Expectation {
        let flat = flattening(arguments)
        guard let pairs = flat.pairs else { return flat }
        if let file = pairs.first(where: { if case .file = $0.value { true } else { false } }) {
            return .failure(.error(.fileNotAllowed(file.name)))
        }
        return flat
    }

    /// Multipart bodies: as ``flattening(_:)``; then a CR or LF in a name or file name must throw
    /// `lineBreakInName` (other Unicode line breaks may), and a file (none exists) must throw
    /// `unreadableFile`.
    static func multipart(_ arguments: [String: Argument]) -> Expectation {
        var expectation = flattening(arguments)
        guard let pairs = expectation.pairs else { return expectation }
        for pair in pairs {
            var names = [pair.name]
            if case .file(let url) = pair.value {
                names.append(url.lastPathComponent)
            }
            let scalars = names.flatMap(\.unicodeScalars).map(\.value)
            if scalars.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
                expectation.failures.append(.error(.lineBreakInName(pair.name)))
                expectation.pairs = nil
                return expectation
            }
            if scalars.contains(where: { [0x0B, 0x0C, 0x85, 0x2028, 0x2029].contains($0) }) {
                expectation.failures.append(.error(.lineBreakInName(pair.name)))
            }
        }
        for pair in pairs {
            if case .file(let url) = pair.value {
                expectation.failures.append(.unreadableFile(key: pair.name, url: url))
                expectation.pairs = nil
                break
            }
        }
        return expectation
    }

    /// Appends the pairs of one argument; returns the expectation when it decides the outcome.
    private static func append(_ argument: Argument, named name: String, to pairs: inout [ExpectedPair])
        -> Expectation?
    {
        switch argument {
        case .string(let string):
            pairs.append(ExpectedPair(name: name, value: .text(string)))
        case .integer(let integer):
            pairs.append(ExpectedPair(name: name, value: .text(String(integer))))
        case .number(let number):
            guard number.isFinite else { return .failure(.error(.nonFiniteNumber(name))) }
            pairs.append(ExpectedPair(name: name, value: .text(number.description)))
        case .boolean(let boolean):
            pairs.append(ExpectedPair(name: name, value: .text(boolean ? "true" : "false")))
        case .date(let date):
            let milliseconds = date.timeIntervalSince1970 * 1000
            if !milliseconds.isFinite || abs(milliseconds) > 9.3e18 {
                return .failure(.anyError(key: name))
            }
            if abs(milliseconds) >= 9.2e18 {
                return .unspecified  // Next to Int64's limits: either a value or an error is fine.
            }
            let whole = milliseconds.rounded()
            if abs(whole) <= Double(ArgumentGenerator.maxWholeMilliseconds),
                Date(timeIntervalSince1970: whole / 1000) == date
            {
                pairs.append(ExpectedPair(name: name, value: .text(String(Int64(whole)))))
            } else {
                pairs.append(ExpectedPair(name: name, value: .milliseconds(near: milliseconds)))
            }
        case .file(let url):
            pairs.append(ExpectedPair(name: name, value: .file(url)))
        case .list(let elements):
            for element in elements {
                if let stop = append(element, named: name, to: &pairs) {
                    return stop
                }
            }
        case .undefined:
            break
        }
        return nil
    }

    /// Byte-wise order of UTF-8 encodings, written out rather than borrowed from KiloEncoding.
    static func precedesInUTF8(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        for index in 0..<min(left.count, right.count) where left[index] != right[index] {
            return left[index] < right[index]
        }
        return left.count < right.count
    }
}
