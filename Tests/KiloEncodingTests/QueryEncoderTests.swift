import Foundation
import KiloEncoding
import Testing

@Suite struct QueryEncoderTests {
    private let encoder = QueryEncoder()

    // MARK: Structure

    @Test func emptyArgumentsGiveAnEmptyString() throws {
        #expect(try encoder.encode([:]) == "")
    }

    @Test func onlyUndefinedArgumentsGiveAnEmptyString() throws {
        #expect(try encoder.encode(["a": .undefined, "b": .list([]), "c": .list([.undefined])]) == "")
    }

    @Test func keysAreSorted() throws {
        let arguments: [String: Argument] = ["zeta": 1, "alpha": 2, "mid": 3, "Beta": 4, "a": 5, "ab": 6, "a_b": 7]
        #expect(try encoder.encode(arguments) == "Beta=4&a=5&a_b=7&ab=6&alpha=2&mid=3&zeta=1")
    }

    @Test func keysAreSortedByUTF8BytesNotByUnicodeCollation() throws {
        // "\u{212B}" (ANGSTROM SIGN, E2 84 AB) is canonically equivalent to "Å" (U+00C5), so Swift's
        // `<` puts it before "ø" (C3 B8); its UTF-8 bytes put it after.
        let arguments: [String: Argument] = ["\u{212B}": 1, "ø": 2, "z": 3, "é": 4, "😀": 5, "\u{FF61}": 6]
        #expect(try encoder.encode(arguments) == "z=3&%C3%A9=4&%C3%B8=2&%E2%84%AB=1&%EF%BD%A1=6&%F0%9F%98%80=5")
    }

    @Test func encodingIsDeterministic() throws {
        var arguments: [String: Argument] = [:]
        for index in 0..<50 {
            arguments["key\(index)"] = .integer(index)
        }
        let first = try encoder.encode(arguments)
        let rebuilt = Dictionary(uniqueKeysWithValues: arguments.shuffled())
        #expect(try encoder.encode(rebuilt) == first)
    }

    @Test func arraysBecomeRepeatedKeysInOrder() throws {
        #expect(try encoder.encode(["id": [3, 1, 2]]) == "id=3&id=1&id=2")
        #expect(try encoder.encode(["b": ["y", "x"], "a": ["2", "1"]]) == "a=2&a=1&b=y&b=x")
    }

    @Test func nestedListsAreFlattenedInOrder() throws {
        #expect(try encoder.encode(["k": [[1, 2], 3, [[4]]]]) == "k=1&k=2&k=3&k=4")
    }

    @Test func undefinedAndEmptyListsAreSkipped() throws {
        let arguments: [String: Argument] = ["a": 1, "b": .undefined, "c": [], "d": [.undefined, 2, .undefined]]
        #expect(try encoder.encode(arguments) == "a=1&d=2")
    }

    @Test func nilFromAnyIsSkipped() throws {
        let missing: String? = nil
        let arguments = try Argument.arguments(from: ["a": "x", "b": missing as Any, "c": NSNull()])
        #expect(try encoder.encode(arguments) == "a=x")
    }

    // MARK: Values

    @Test func booleansAreTrueAndFalse() throws {
        #expect(try encoder.encode(["no": false, "yes": true]) == "no=false&yes=true")
    }

    @Test(arguments: [
        (0, "0"), (42, "42"), (-7, "-7"), (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
    ])
    func integersAreDecimalDigits(value: Int, wire: String) throws {
        #expect(try encoder.encode(["n": .integer(value)]) == "n=\(wire)")
    }

    @Test(arguments: [
        (1.5, "1.5"), (2.0, "2.0"), (0.1, "0.1"), (-0.25, "-0.25"), (0.0, "0.0"), (100.0, "100.0"),
        (1_234_567.875, "1234567.875"),
    ])
    func doublesAreShortestRoundTripDigits(value: Double, wire: String) throws {
        #expect(try encoder.encode(["x": .number(value)]) == "x=\(wire)")
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, -Double.nan])
    func nonFiniteNumberThrowsWithItsKey(value: Double) {
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("x")) {
            try encoder.encode(["a": 1, "x": .number(value)])
        }
    }

    @Test func nonFiniteNumberInsideAListThrowsWithTheListsKey() {
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("xs")) {
            try encoder.encode(["xs": [1.0, .number(.nan)]])
        }
    }

    // MARK: Dates

    @Test func dateIsEpochMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try encoder.encode(["d": .date(date)]) == "d=1700000000123")
    }

    @Test(arguments: [
        (0.0, "0"), (1.0, "1000"), (0.001, "1"), (1_000_000_000.5, "1000000000500"),
        (978_307_200.0, "978307200000"), (4_102_444_800.999, "4102444800999"),
    ])
    func wholeMillisecondDatesAreExact(seconds: TimeInterval, wire: String) throws {
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: seconds))]) == "d=\(wire)")
    }

    @Test func datesFromRandomWholeMillisecondsRoundTripExactly() throws {
        var generator = SeededGenerator(seed: 0x4B49_4C4F)
        // From 1900 to 2200, both sides of 1970 and of Foundation's 2001 reference date.
        let range: ClosedRange<Int64> = -2_208_988_800_000...7_258_118_400_000
        var mismatches: [(milliseconds: Int64, wire: String)] = []
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: range, using: &generator)
            let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
            let wire = try encoder.encode(["d": .date(date)])
            if wire != "d=\(milliseconds)" {
                mismatches.append((milliseconds, wire))
            }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test func dateMadeFromReferenceDateIntervalIsExact() throws {
        let date = Date(timeIntervalSinceReferenceDate: 0.001)
        #expect(try encoder.encode(["d": .date(date)]) == "d=978307200001")
    }

    @Test(arguments: [
        (1_700_000_000.1234, "1700000000123"), (1_700_000_000.1239, "1700000000123"),
        (0.0009, "0"), (1.0005, "1000"),
    ])
    func subMillisecondIsRoundedDown(seconds: TimeInterval, wire: String) throws {
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: seconds))]) == "d=\(wire)")
    }

    @Test(arguments: [
        (-1.0, "-1000"), (-0.001, "-1"), (-1.5, "-1500"), (-86_400.123, "-86400123"),
        (-2_208_988_800.0, "-2208988800000"),
    ])
    func negativeDatesAreExact(seconds: TimeInterval, wire: String) throws {
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: seconds))]) == "d=\(wire)")
    }

    @Test func negativeSubMillisecondIsRoundedDownTowardsThePast() throws {
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: -0.0005))]) == "d=-1")
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: -1.0015))]) == "d=-1002")
    }

    @Test(arguments: [
        (8_592_278_617.467, "8592278617467"), (-3_316_795_685.919, "-3316795685919"),
        (253_402_300_799.999, "253402300799999"), (-62_135_596_800.001, "-62135596800001"),
    ])
    func farWholeMillisecondDatesAreExact(seconds: TimeInterval, wire: String) throws {
        #expect(try encoder.encode(["d": .date(Date(timeIntervalSince1970: seconds))]) == "d=\(wire)")
    }

    @Test func wholeMillisecondDatesAcrossTheYears1To9999RoundTripExactly() throws {
        var generator = SeededGenerator(seed: 1234)
        var mismatches: [(milliseconds: Int64, wire: String)] = []
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
            let wire = try encoder.encode(["d": .date(Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))])
            if wire != "d=\(milliseconds)" {
                mismatches.append((milliseconds, wire))
            }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test(arguments: [1e16, -1e16, .infinity, -.infinity, .nan])
    func aDateTooFarFrom1970Throws(seconds: TimeInterval) throws {
        #expect(throws: ArgumentEncodingError.dateOutOfRange("d")) {
            try encoder.encode(["d": .date(Date(timeIntervalSince1970: seconds))])
        }
    }

    @Test func listOfDatesGivesOnePairEach() throws {
        let dates: Argument = [.date(Date(timeIntervalSince1970: 1)), .date(Date(timeIntervalSince1970: 2))]
        #expect(try encoder.encode(["d": dates]) == "d=1000&d=2000")
    }

    // MARK: Percent-encoding

    @Test(arguments: [
        ("a b", "a%20b"), ("a+b", "a%2Bb"), ("x&y", "x%26y"), ("k=v", "k%3Dv"), ("why?", "why%3F"),
        ("a/b", "a%2Fb"), ("#1", "%231"), ("100%", "100%25"), ("é", "%C3%A9"), ("😀", "%F0%9F%98%80"),
        ("日本", "%E6%97%A5%E6%9C%AC"), ("e\u{301}", "e%CC%81"), ("a\nb\r", "a%0Ab%0D"), ("\"<>'", "%22%3C%3E%27"),
        (":@!$()*,;[]", "%3A%40%21%24%28%29%2A%2C%3B%5B%5D"), ("", ""),
    ])
    func valuesArePercentEncoded(raw: String, encoded: String) throws {
        #expect(try encoder.encode(["q": .string(raw)]) == "q=\(encoded)")
    }

    @Test(arguments: [
        ("a b", "a%20b"), ("a+b", "a%2Bb"), ("x&y", "x%26y"), ("k=v", "k%3Dv"), ("why?", "why%3F"),
        ("a/b", "a%2Fb"), ("#1", "%231"), ("100%", "100%25"), ("é", "%C3%A9"), ("😀", "%F0%9F%98%80"),
        ("items[]", "items%5B%5D"),
    ])
    func namesArePercentEncoded(raw: String, encoded: String) throws {
        #expect(try encoder.encode([raw: "v"]) == "\(encoded)=v")
    }

    @Test func unreservedCharactersAreLeftAlone() throws {
        let unreserved = "ABCXYZabcxyz0189-._~"
        #expect(try encoder.encode([unreserved: .string(unreserved)]) == "\(unreserved)=\(unreserved)")
    }

    @Test func everyASCIIByteOutsideTheUnreservedSetIsEscaped() throws {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let text = String(decoding: [byte], as: UTF8.self)
            let expected = unreserved.contains(byte) ? text : "%" + String(format: "%02X", byte)
            #expect(try encoder.encode(["q": .string(text)]) == "q=\(expected)", "byte \(byte)")
        }
    }

    @Test func percentEncodedQueryMakesAValidURLWhoseItemsDecodeBack() throws {
        let arguments: [String: Argument] = ["q": "a+b & c=d?/#%", "é": "😀", "tags": ["x y", "z"]]
        let query = try encoder.encode(arguments)
        let components = try #require(URLComponents(string: "https://example.com/search?\(query)"))
        #expect(
            components.queryItems == [
                URLQueryItem(name: "q", value: "a+b & c=d?/#%"), URLQueryItem(name: "tags", value: "x y"),
                URLQueryItem(name: "tags", value: "z"), URLQueryItem(name: "é", value: "😀"),
            ]
        )
    }

    // MARK: Errors

    @Test func emptyKeyThrows() {
        #expect(throws: ArgumentEncodingError.emptyKey) {
            try encoder.encode(["a": 1, "": "x"])
        }
    }

    @Test func fileThrowsFileNotAllowedWithItsKey() {
        let file = URL(fileURLWithPath: "/tmp/a.txt")
        #expect(throws: ArgumentEncodingError.fileNotAllowed("doc")) {
            try encoder.encode(["a": 1, "doc": .file(file)])
        }
        #expect(throws: ArgumentEncodingError.fileNotAllowed("docs")) {
            try encoder.encode(["docs": ["x", .file(file)]])
        }
    }
}
