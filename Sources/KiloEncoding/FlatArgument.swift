import Foundation

/// One name–value pair of a flattened argument dictionary.
struct FlatArgument: Sendable, Hashable {
    enum Value: Sendable, Hashable {
        case text(String)
        case file(URL)
    }

    var name: String
    var value: Value
}

extension FlatArgument {
    /// Flattens arguments into name–value pairs, in the order every encoder uses.
    ///
    /// Keys are sorted by their UTF-8 bytes, so the same arguments always give the same output;
    /// a list keeps its elements' order. Undefined values are skipped; dates become epoch
    /// milliseconds.
    ///
    /// - Throws: ``ArgumentEncodingError`` for an empty key, a non-finite number or a date too
    ///   far from 1970 to send as milliseconds.
    static func flatten(_ arguments: [String: Argument]) throws -> [FlatArgument] {
        var pairs: [FlatArgument] = []
        pairs.reserveCapacity(arguments.count)
        for (key, argument) in arguments.sorted(by: { precedesInUTF8($0.key, $1.key) }) {
            guard !key.isEmpty else { throw ArgumentEncodingError.emptyKey }
            try append(argument, named: key, to: &pairs)
        }
        return pairs
    }

    /// Whether `first` sorts before `second` when both are compared by their UTF-8 bytes.
    private static func precedesInUTF8(_ first: String, _ second: String) -> Bool {
        // Comparing the strings' contiguous bytes is several times faster than stepping through two
        // `UTF8View` iterators. Every native string has contiguous UTF-8; a bridged one may not.
        let result = first.utf8.withContiguousStorageIfAvailable { firstBytes in
            second.utf8.withContiguousStorageIfAvailable { secondBytes in
                firstBytes.lexicographicallyPrecedes(secondBytes)
            }
        }
        if case .some(.some(let precedes)) = result {
            return precedes
        }
        return first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    private static func append(_ argument: Argument, named name: String, to pairs: inout [FlatArgument]) throws {
        switch argument {
        case .string(let string):
            pairs.append(FlatArgument(name: name, value: .text(string)))
        case .integer(let integer):
            pairs.append(FlatArgument(name: name, value: .text(String(integer))))
        case .number(let number):
            guard number.isFinite else { throw ArgumentEncodingError.nonFiniteNumber(name) }
            pairs.append(FlatArgument(name: name, value: .text(number.description)))
        case .boolean(let boolean):
            pairs.append(FlatArgument(name: name, value: .text(boolean ? "true" : "false")))
        case .date(let date):
            guard let milliseconds = date.millisecondsSince1970 else {
                throw ArgumentEncodingError.dateOutOfRange(name)
            }
            pairs.append(FlatArgument(name: name, value: .text(String(milliseconds))))
        case .file(let url):
            pairs.append(FlatArgument(name: name, value: .file(url)))
        case .list(let elements):
            for element in elements {
                try append(element, named: name, to: &pairs)
            }
        case .undefined:
            break
        }
    }
}

extension Date {
    /// Whole milliseconds since 1 January 1970 UTC, rounded down, or `nil` for a date too far
    /// from 1970 (or not finite) to count in an `Int64`.
    ///
    /// A date made from a whole number of milliseconds gives that number back exactly, despite
    /// binary floating point: a value within a few units in the last place of a whole number
    /// (or within a microsecond) is taken to be that number. (KiloCore's JSON encoder follows the
    /// same rule for dates in JSON bodies.)
    var millisecondsSince1970: Int64? {
        let milliseconds = timeIntervalSince1970 * 1000
        guard milliseconds.isFinite, abs(milliseconds) < 9.2e18 else { return nil }
        let nearest = milliseconds.rounded()
        let isWhole = abs(milliseconds - nearest) <= max(0.001, 4 * milliseconds.ulp)
        return Int64(isWhole ? nearest : milliseconds.rounded(.down))
    }
}
