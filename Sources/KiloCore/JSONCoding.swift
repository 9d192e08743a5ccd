import Foundation

/// The JSON coders Kilo uses: dates as milliseconds since 1970, both ways.
public enum JSONCoding {
    /// Makes a decoder that reads dates as milliseconds since 1 January 1970.
    ///
    /// - Returns: A new decoder.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    /// Makes an encoder that writes dates as milliseconds since 1 January 1970.
    ///
    /// A date made from a whole number of milliseconds (one this package's decoder read, say) is
    /// written as that whole number, although a `Date` cannot always hold it exactly:
    /// `JSONEncoder`'s own strategy would write `1.000046730041504` for 1 millisecond, which a
    /// server that reads an integer rejects. A date with a fraction of a millisecond keeps it.
    ///
    /// - Returns: A new encoder.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            let milliseconds = date.timeIntervalSince1970 * 1000
            if let whole = wholeMilliseconds(milliseconds) {
                try container.encode(whole)
            } else {
                try container.encode(milliseconds)
            }
        }
        return encoder
    }

    /// The whole number that `milliseconds` stands for, when it is within a few units in the last
    /// place (or a microsecond) of one that fits in an `Int64`: the error a `Date` adds, which
    /// counts seconds since 2001 in binary floating point. The same rule as query and form
    /// arguments follow.
    private static func wholeMilliseconds(_ milliseconds: Double) -> Int64? {
        guard milliseconds.isFinite, abs(milliseconds) < 9.2e18 else { return nil }
        let nearest = milliseconds.rounded()
        guard abs(milliseconds - nearest) <= max(0.001, 4 * milliseconds.ulp) else { return nil }
        return Int64(nearest)
    }
}
