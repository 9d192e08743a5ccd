import Foundation
import KiloCore
import Testing

@Suite struct JSONValidatorTests {
    private struct Price: Encodable {
        var dec: Decimal
    }

    private struct Order: Encodable {
        var id = 1
        var items: [Item]
    }

    private struct Item: Encodable {
        var name: String
        var price: Decimal
    }

    /// What this platform's `JSONEncoder` does, which the validator exists for: a `Decimal` NaN
    /// is written as a bare `NaN`, whatever the strategy for non-conforming floats.
    @Test func jsonEncoderWritesADecimalNaNAsABareToken() throws {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        for encoder in [JSONEncoder(), encoder] {
            #expect(String(decoding: try encoder.encode(Price(dec: .nan)), as: UTF8.self) == #"{"dec":NaN}"#)
        }
    }

    @Test func aDecimalNaNIsInvalidWithItsCodingPath() throws {
        let error = #expect(throws: EncodingError.self) {
            try JSONValidator.validate(JSONEncoder().encode(Price(dec: .nan)))
        }
        guard case .invalidValue(let value, let context) = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(value as? String == "NaN")
        #expect(context.codingPath.map(\.stringValue) == ["dec"])
        #expect(context.debugDescription.contains("NaN"))
    }

    @Test func theCodingPathNamesKeysAndIndexesOfNestedValues() throws {
        let order = Order(items: [
            Item(name: "a, \"b\": [c]", price: 1), Item(name: "\\", price: 2), Item(name: "x", price: .nan),
        ])
        let error = #expect(throws: EncodingError.self) {
            try JSONValidator.validate(JSONEncoder().encode(order))
        }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 2", "price"])
        #expect(context.codingPath.map(\.intValue) == [nil, 2, nil])
    }

    @Test func aKeyWithEscapesIsNamedAsWritten() throws {
        let error = #expect(throws: EncodingError.self) {
            try JSONValidator.validate(JSONEncoder().encode(["a\"b\\é": Decimal.nan]))
        }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["a\"b\\é"])
    }

    @Test func aTopLevelNaNHasAnEmptyPath() throws {
        let error = #expect(throws: EncodingError.self) {
            try JSONValidator.validate(JSONEncoder().encode(Decimal.nan))
        }
        guard case .invalidValue(let value, let context) = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(value as? String == "NaN")
        #expect(context.codingPath.isEmpty)
    }

    /// Everything `JSONEncoder` writes for finite values is JSON, and passes: extreme numbers
    /// (`1e+301`, `5e-324`, the least positive `Double`), big decimals, strings that hold what would be bad tokens outside
    /// one, escapes that end in a backslash, empty containers.
    @Test func jsonEncoderOutputForFiniteValuesPasses() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        let values: [[String: [Double]]] = [
            ["big": [1e301, -1e301, .leastNonzeroMagnitude, -0.0, 0, 0.1, 123_456_789.5]], ["NaN": []], [:],
        ]
        let texts = ["NaN", "Infinity", "-1e", "\\", "\"", "a\\\"NaN\\", "{]", ""]
        let decimals = [Decimal(string: "1e100"), Decimal(string: "-1e-100"), Decimal(string: "0")]
        for encoder in [encoder, pretty] {
            for value in values {
                try JSONValidator.validate(encoder.encode(value))
            }
            try JSONValidator.validate(encoder.encode(texts))
            try JSONValidator.validate(encoder.encode(["k": texts]))
            try JSONValidator.validate(encoder.encode(decimals))
            try JSONValidator.validate(encoder.encode([true, false]))
            try JSONValidator.validate(encoder.encode([String?.none]))
        }
    }

    @Test(arguments: [
        "1", "-1", "0", "-0", "0.5", "-0.5", "1e5", "1E+5", "1e-5", "12.34e10", "true", "false", "null",
        #"{"a":[1,2,{"b":null}],"c":"x"}"#, " [ 1 , 2 ] ", #""\\""#, #""\"""#,
    ])
    func jsonPasses(json: String) throws {
        try JSONValidator.validate(Data(json.utf8))
    }

    @Test(arguments: [
        "NaN", "nan", "Infinity", "-Infinity", "inf", "01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1_000",
        "True", "nul", "undefined", #"{"a":NaN}"#, "[1,NaN]", #"{"a":"b"c}"#, #""unterminated"#, #""ends in \""#,
    ])
    func notJSONThrows(json: String) {
        #expect(throws: EncodingError.self) {
            try JSONValidator.validate(Data(json.utf8))
        }
    }
}
