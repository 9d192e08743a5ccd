import Foundation

/// Values shared by several suites.
enum Fixtures {
    /// Text that a careless encoder corrupts: reserved characters, `%`, spaces, non-ASCII text
    /// and emoji (including one made of several scalars).
    static let awkwardValues = [
        "a+b", "x&y", "k=v", "why?", "a/b", "100%", "%41", "two words", " padded ", "é", "naïve café",
        "😀", "👍🏽", "a+b&c=d?e/f%g h é😀",
    ]

    /// A key holding the same awkward characters, to check that names are encoded too.
    static let awkwardKey = "k+&=?/% é😀"

    /// Whole milliseconds since 1970 that must cross the wire exactly.
    static let epochMilliseconds: [Int64] = [1_700_000_000_123, 0, 1, -1_500, 253_402_300_799_999]

    /// A date made from whole milliseconds.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The whole milliseconds since 1970 of a date decoded from JSON.
    static func milliseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Deterministic pseudo-random bytes, so an upload has a known size and hash.
    static func bytes(count: Int, seed: UInt32 = 1) -> Data {
        var state = seed
        var data = Data(capacity: count)
        for _ in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            data.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        return data
    }
}
