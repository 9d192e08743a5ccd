import Foundation
import KiloEncoding
import Testing

@Suite struct ArgumentTests {
    // MARK: Literals

    @Test func literalsMakeTheMatchingCase() {
        let string: Argument = "swift"
        let integer: Argument = 42
        let number: Argument = 1.5
        let boolean: Argument = true
        let list: Argument = ["a", 1, 2.5, false, ["nested"]]
        #expect(string == .string("swift"))
        #expect(integer == .integer(42))
        #expect(number == .number(1.5))
        #expect(boolean == .boolean(true))
        #expect(list == .list([.string("a"), .integer(1), .number(2.5), .boolean(false), .list([.string("nested")])]))
    }

    @Test func literalsWorkInADictionaryOfArguments() throws {
        let arguments: [String: Argument] = ["q": "swift", "page": 2, "tags": ["a", "b"]]
        #expect(try QueryEncoder().encode(arguments) == "page=2&q=swift&tags=a&tags=b")
    }

    // MARK: Conversion from Any

    @Test func stringAndSubstringBecomeStrings() throws {
        #expect(try Argument("héllo" as Any, forKey: "k") == .string("héllo"))
        let substring = "abcdef".dropFirst(2).prefix(3)
        #expect(try Argument(substring as Any, forKey: "k") == .string("cde"))
        #expect(try Argument("" as Any, forKey: "k") == .string(""))
    }

    @Test func boolBecomesBooleanNotInteger() throws {
        #expect(try Argument(true as Any, forKey: "k") == .boolean(true))
        #expect(try Argument(false as Any, forKey: "k") == .boolean(false))
    }

    @Test func integersBecomeIntegers() throws {
        #expect(try Argument(42 as Any, forKey: "k") == .integer(42))
        #expect(try Argument(Int.min as Any, forKey: "k") == .integer(.min))
        #expect(try Argument(Int8(-7) as Any, forKey: "k") == .integer(-7))
        #expect(try Argument(UInt8(255) as Any, forKey: "k") == .integer(255))
        #expect(try Argument(Int32.max as Any, forKey: "k") == .integer(Int(Int32.max)))
        #expect(try Argument(UInt64(12) as Any, forKey: "k") == .integer(12))
    }

    @Test func unsignedIntegerAboveIntMaxIsSentAsItsDigits() throws {
        #expect(try Argument(UInt64.max as Any, forKey: "k") == .string("18446744073709551615"))
        #expect(try Argument(UInt64(Int.max) + 1 as Any, forKey: "k") == .string("9223372036854775808"))
        #expect(try Argument(UInt(Int.max) as Any, forKey: "k") == .integer(.max))
        let argument = try Argument(UInt64.max as Any, forKey: "big")
        #expect(try QueryEncoder().encode(["big": argument]) == "big=18446744073709551615")
    }

    @Test func doubleBecomesNumber() throws {
        #expect(try Argument(1.5 as Any, forKey: "k") == .number(1.5))
        #expect(try Argument(-0.25 as Any, forKey: "k") == .number(-0.25))
    }

    @Test(arguments: [
        (Float(0.1), "0.1"), (Float(1.5), "1.5"), (Float(3.14159), "3.14159"), (Float(2), "2.0"),
        (Float(-0.3), "-0.3"), (Float(16_777_216), "16777216.0"),
    ])
    func floatIsSentWithItsShortestDigitsNotWidened(float: Float, wire: String) throws {
        let argument = try Argument(float as Any, forKey: "f")
        #expect(try QueryEncoder().encode(["f": argument]) == "f=\(wire)")
    }

    @Test func floatZeroPointOneIsExactlyDoubleZeroPointOne() throws {
        #expect(try Argument(Float(0.1) as Any, forKey: "k") == .number(0.1))
    }

    @Test func nonFiniteFloatsConvertButFailToEncode() throws {
        let infinity = try Argument(Float.infinity as Any, forKey: "f")
        #expect(infinity == .number(.infinity))
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("f")) {
            try QueryEncoder().encode(["f": infinity])
        }
        let nan = try Argument(Float.nan as Any, forKey: "g")
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("g")) {
            try QueryEncoder().encode(["g": nan])
        }
    }

    // Kilo 3.x dictionaries often come from JSONSerialization or Objective-C, whose numbers are NSNumber.
    @Test(arguments: [(0, "0"), (1, "1"), (42, "42"), (-1, "-1")])
    func foundationIntegerIsNotMistakenForABoolean(integer: Int, wire: String) throws {
        let argument = try Argument(NSNumber(value: integer) as Any, forKey: "n")
        #expect(argument == .integer(integer))
        #expect(try QueryEncoder().encode(["n": argument]) == "n=\(wire)")
    }

    @Test func foundationBooleanAndDoubleKeepTheirKinds() throws {
        #expect(try Argument(NSNumber(value: true) as Any, forKey: "k") == .boolean(true))
        #expect(try Argument(NSNumber(value: false) as Any, forKey: "k") == .boolean(false))
        #expect(try Argument(NSNumber(value: 1.5) as Any, forKey: "k") == .number(1.5))
    }

    @Test func foundationFloatKeepsItsShortestDigits() throws {
        #expect(try Argument(NSNumber(value: Float(0.1)) as Any, forKey: "k") == .number(0.1))
    }

    @Test func foundationDecimalKeepsAllItsDigits() throws {
        let number = NSDecimalNumber(string: "12345678901234567890.5", locale: Locale(identifier: "en_US_POSIX"))
        #expect(try Argument(number as Any, forKey: "k") == .string("12345678901234567890.5"))
    }

    @Test func otherFloatingPointTypesBecomeNumbers() throws {
        #expect(try Argument(CGFloat(1.5) as Any, forKey: "k") == .number(1.5))
        #if !(os(macOS) && arch(x86_64))
            #expect(try Argument(Float16(0.1) as Any, forKey: "k") == .number(Double("\(Float16(0.1))")!))
            let nan = try Argument(Float16.nan as Any, forKey: "k")
            #expect(throws: ArgumentEncodingError.nonFiniteNumber("k")) {
                try QueryEncoder().encode(["k": nan])
            }
        #endif
    }

    @Test func jsonObjectConvertsWithTheRightKinds() throws {
        let json = Data(#"{"page": 1, "first": 0, "all": true, "ratio": 1.5, "gone": null, "ids": [1, 0]}"#.utf8)
        let dictionary = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let query = try QueryEncoder().encode(Argument.arguments(from: dictionary))
        #expect(query == "all=true&first=0&ids=1&ids=0&page=1&ratio=1.5")
    }

    @Test func dateBecomesDate() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try Argument(date as Any, forKey: "k") == .date(date))
    }

    @Test func fileURLBecomesFile() throws {
        let url = URL(fileURLWithPath: "/tmp/report.pdf")
        #expect(try Argument(url as Any, forKey: "k") == .file(url))
    }

    @Test func webURLBecomesItsAbsoluteString() throws {
        let url = try #require(URL(string: "https://example.com/a/b?c=d#e"))
        #expect(try Argument(url as Any, forKey: "k") == .string("https://example.com/a/b?c=d#e"))
    }

    @Test func uuidBecomesItsString() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try Argument(uuid as Any, forKey: "k") == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }

    @Test func decimalBecomesItsExactDigits() throws {
        let price = try #require(Decimal(string: "12.34", locale: Locale(identifier: "en_US_POSIX")))
        #expect(try Argument(price as Any, forKey: "k") == .string("12.34"))
        let tiny = try #require(Decimal(string: "0.1", locale: Locale(identifier: "en_US_POSIX")))
        #expect(try Argument(tiny as Any, forKey: "k") == .string("0.1"))
    }

    /// `Decimal` division by zero gives NaN, and so does `NSDecimalNumber(string:)` for text that is
    /// not a number; its `description` is "NaN", which no server reads as a number.
    @Test func decimalNotANumberConvertsButFailsToEncode() throws {
        let quotient = Decimal(1) / Decimal(0)
        let unparsed = NSDecimalNumber(string: "twelve", locale: Locale(identifier: "en_US_POSIX"))
        for value in [quotient, Decimal.nan, unparsed, NSDecimalNumber.notANumber] as [Any] {
            let argument = try Argument(value, forKey: "price")
            #expect(throws: ArgumentEncodingError.nonFiniteNumber("price")) {
                try QueryEncoder().encode(["price": argument])
            }
        }
    }

    @Test func argumentStaysItself() throws {
        #expect(try Argument(Argument.integer(3) as Any, forKey: "k") == .integer(3))
        #expect(try Argument(Argument.undefined as Any, forKey: "k") == .undefined)
        #expect(try Argument(Argument.list(["x"]) as Any, forKey: "k") == .list(["x"]))
    }

    @Test func arrayBecomesListOfConvertedElements() throws {
        let values: [Any] = ["a", 1, true, 2.5, UInt64.max]
        #expect(
            try Argument(values as Any, forKey: "k")
                == .list([.string("a"), .integer(1), .boolean(true), .number(2.5), .string("18446744073709551615")])
        )
        #expect(try Argument([Int]() as Any, forKey: "k") == .list([]))
    }

    @Test func nestedArraysBecomeNestedLists() throws {
        let nested: [[Int]] = [[1, 2], [3]]
        #expect(try Argument(nested as Any, forKey: "k") == .list([.list([1, 2]), .list([3])]))
        #expect(try QueryEncoder().encode(["k": Argument(nested as Any, forKey: "k")]) == "k=1&k=2&k=3")
    }

    @Test func nilOptionalAndNSNullBecomeUndefined() throws {
        let missing: Int? = nil
        #expect(try Argument(missing as Any, forKey: "k") == .undefined)
        let missingString: String? = nil
        #expect(try Argument(missingString as Any, forKey: "k") == .undefined)
        #expect(try Argument(NSNull(), forKey: "k") == .undefined)
    }

    /// A lookup in a `[String: Int?]` gives an `Int??`: `nil` inside an optional is still `nil`.
    @Test func nilInsideAnOptionalBecomesUndefined() throws {
        let values: [String: Int?] = ["gone": nil, "kept": 3]
        #expect(try Argument(values["gone"] as Any, forKey: "k") == .undefined)
        #expect(try Argument(values["kept"] as Any, forKey: "k") == .integer(3))
        let deeper: String??? = .some(.some(nil))
        #expect(try Argument(deeper as Any, forKey: "k") == .undefined)
    }

    @Test func presentOptionalIsUnwrapped() throws {
        let present: Int? = 7
        #expect(try Argument(present as Any, forKey: "k") == .integer(7))
        let optionals: [String?] = ["a", nil]
        #expect(try Argument(optionals as Any, forKey: "k") == .list([.string("a"), .undefined]))
    }

    /// A Foundation number in an optional (`json["count"] as? NSNumber`, a `[String: NSNumber?]`
    /// lookup) or in an `AnyHashable` keeps its kind, as one on its own does: a cast to `Bool`
    /// would read `1` as `true`.
    @Test func foundationNumberInsideAWrapperKeepsItsKind() throws {
        let one: NSNumber? = NSNumber(value: 1)
        #expect(try Argument(one as Any, forKey: "k") == .integer(1))
        let nestedZero: NSNumber?? = .some(NSNumber(value: 0))
        #expect(try Argument(nestedZero as Any, forKey: "k") == .integer(0))
        let largest: NSNumber? = NSNumber(value: UInt64.max)
        #expect(try Argument(largest as Any, forKey: "k") == .string("18446744073709551615"))
        let list: [NSNumber?] = [NSNumber(value: 1), NSNumber(value: true), nil]
        #expect(try Argument(list as Any, forKey: "k") == .list([.integer(1), .boolean(true), .undefined]))
        #expect(try Argument(AnyHashable(NSNumber(value: 1)), forKey: "k") == .integer(1))
        #expect(try Argument(AnyHashable(Int8(1)), forKey: "k") == .integer(1))
    }

    @Test func dictionaryValueIsUnsupported() throws {
        let error = #expect(throws: ArgumentEncodingError.self) {
            try Argument(["a": 1] as Any, forKey: "filter")
        }
        #expect(error == .unsupportedValue("filter", type: "Dictionary<String, Int>"))
        #expect(error?.key == "filter")
    }

    @Test func unsupportedValueInsideAnArrayNamesTheArgument() {
        let values: [Any] = [1, ["a": 1]]
        let error = #expect(throws: ArgumentEncodingError.self) {
            try Argument(values as Any, forKey: "ids")
        }
        #expect(error?.key == "ids")
    }

    @Test func customTypeIsUnsupported() {
        struct Point { var x = 1, y = 2 }
        #expect(throws: ArgumentEncodingError.unsupportedValue("p", type: "Point")) {
            try Argument(Point() as Any, forKey: "p")
        }
    }

    // MARK: Any other value (Kilo 3.x sent every value by its description)

    @Test func describedEnumIsSentAsItsDescription() throws {
        #expect(try Argument(DayOfWeek.monday as Any, forKey: "day") == .string("MONDAY"))
        #expect(try QueryEncoder().encode(Argument.arguments(from: ["day": DayOfWeek.friday])) == "day=FRIDAY")
    }

    @Test func rawRepresentableIsSentAsItsConvertedRawValue() throws {
        #expect(try Argument(Sort.descending as Any, forKey: "k") == .string("desc"))
        #expect(try Argument(Priority.high as Any, forKey: "k") == .integer(3))
        #expect(try Argument(Ratio.half as Any, forKey: "k") == .number(0.5))
        #expect(try Argument(Shipping([.express, .insured]) as Any, forKey: "k") == .integer(5))
        // A raw value that is itself raw-representable is converted in turn.
        #expect(try Argument(Wrapped(rawValue: .high) as Any, forKey: "k") == .integer(3))
    }

    @Test func rawValueComesBeforeDescription() throws {
        #expect(try Argument(Colour.red as Any, forKey: "k") == .string("r"))
    }

    @Test func customStringConvertibleValueIsSentAsItsDescription() throws {
        #expect(try Argument(Version(major: 3, minor: 1) as Any, forKey: "k") == .string("3.1"))
        #expect(try Argument(Token() as Any, forKey: "k") == .string("token-7"))
    }

    @Test func describedValuesInsideArraysAndOptionalsAreConverted() throws {
        let days: [DayOfWeek] = [.monday, .friday]
        #expect(try Argument(days as Any, forKey: "k") == .list(["MONDAY", "FRIDAY"]))
        let maybe: Sort? = .ascending
        #expect(try Argument(maybe as Any, forKey: "k") == .string("asc"))
        let none: DayOfWeek? = nil
        #expect(try Argument(none as Any, forKey: "k") == .undefined)
        #expect(try Argument(AnyHashable(Sort.ascending), forKey: "k") == .string("asc"))
    }

    /// A raw value that is not a finite number, or a date too far from 1970, fails when encoded,
    /// as the same value given directly does.
    @Test func rawValuesKeepTheEncodersChecks() throws {
        let nan = try Argument(Ratio(rawValue: .nan) as Any, forKey: "r")
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("r")) { try QueryEncoder().encode(["r": nan]) }
        let far = try Argument(Deadline(rawValue: Date(timeIntervalSince1970: 1e300)) as Any, forKey: "d")
        #expect(throws: ArgumentEncodingError.dateOutOfRange("d")) { try QueryEncoder().encode(["d": far]) }
    }

    /// Values whose description is no value a server could read: collections other than arrays
    /// (a dictionary's `["a": 1]`, a set's elements in no order, `Data`'s `2 bytes`), and values
    /// with no description of their own.
    @Test func valuesWithoutATextFormAreUnsupported() throws {
        let values: [(Any, String)] = [
            (Set([1, 2]), "Set<Int>"), (Data([1, 2]), "Data"), (NSData(), "NSData"), (1..<3, "Range<Int>"),
            ([1, 2].dropFirst(), "ArraySlice<Int>"), (NSDictionary(), "NSDictionary"), ({ () in }, "() -> ()"),
            ((1, 2), "(Int, Int)"), (Int.self, "Int.Type"),
        ]
        for (value, type) in values {
            #expect(throws: ArgumentEncodingError.unsupportedValue("k", type: type)) {
                try Argument(value, forKey: "k")
            }
        }
    }

    @Test func argumentsFromDictionaryConvertsEveryValue() throws {
        let dictionary: [String: Any] = [
            "name": "Ann", "age": 40, "ok": true, "gone": NSNull(), "tags": ["a", "b"],
        ]
        let arguments = try Argument.arguments(from: dictionary)
        #expect(
            arguments == [
                "name": .string("Ann"), "age": .integer(40), "ok": .boolean(true), "gone": .undefined,
                "tags": .list(["a", "b"]),
            ]
        )
        #expect(try QueryEncoder().encode(arguments) == "age=40&name=Ann&ok=true&tags=a&tags=b")
    }

    @Test func argumentsFromDictionaryThrowsForAnUnsupportedValue() {
        let dictionary: [String: Any] = ["fine": 1, "bad": ["x": 1]]
        let error = #expect(throws: ArgumentEncodingError.self) {
            try Argument.arguments(from: dictionary)
        }
        #expect(error?.key == "bad")
    }
}

private enum DayOfWeek: CustomStringConvertible {
    case monday, friday

    var description: String {
        switch self {
        case .monday: "MONDAY"
        case .friday: "FRIDAY"
        }
    }
}

private enum Sort: String {
    case ascending = "asc", descending = "desc"
}

private enum Priority: Int {
    case low = 1, high = 3
}

private struct Ratio: RawRepresentable {
    var rawValue: Double
    static let half = Ratio(rawValue: 0.5)
}

private enum Colour: String, CustomStringConvertible {
    case red = "r"

    var description: String { "Red" }
}

private struct Shipping: OptionSet {
    let rawValue: Int
    static let express = Shipping(rawValue: 1)
    static let insured = Shipping(rawValue: 4)
}

private struct Wrapped: RawRepresentable {
    var rawValue: Priority
}

private struct Deadline: RawRepresentable {
    var rawValue: Date
}

private struct Version: CustomStringConvertible {
    var major: Int, minor: Int
    var description: String { "\(major).\(minor)" }
}

private final class Token: CustomStringConvertible {
    var description: String { "token-7" }
}
