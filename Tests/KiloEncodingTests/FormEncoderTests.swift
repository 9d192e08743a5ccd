import Foundation
import KiloEncoding
import Testing

@Suite struct FormEncoderTests {
    private let encoder = FormEncoder()

    @Test func contentTypeIsURLEncodedForm() {
        #expect(FormEncoder.contentType == "application/x-www-form-urlencoded")
    }

    @Test func emptyArgumentsGiveEmptyData() throws {
        #expect(try encoder.encode([:]) == Data())
        #expect(try encoder.encode(["a": .undefined, "b": []]) == Data())
    }

    @Test func bodyIsSortedPairsAsUTF8Bytes() throws {
        let body = try encoder.encode(["name": "Ann", "age": 40, "admin": false])
        #expect(body == Data("admin=false&age=40&name=Ann".utf8))
    }

    @Test func keysAreSortedByUTF8Bytes() throws {
        let body = try encoder.encode(["\u{212B}": 1, "ø": 2, "Z": 3, "a": 4])
        #expect(body.utf8Text == "Z=3&a=4&%C3%B8=2&%E2%84%AB=1")
    }

    @Test func arraysBecomeRepeatedKeysInOrder() throws {
        let body = try encoder.encode(["tags": ["b", "a", "c"], "id": 1])
        #expect(body.utf8Text == "id=1&tags=b&tags=a&tags=c")
    }

    @Test func spaceIsPercentTwentyNeverPlus() throws {
        let body = try encoder.encode(["full name": "Ann Lee", "sum": "1+1"])
        #expect(body.utf8Text == "full%20name=Ann%20Lee&sum=1%2B1")
    }

    @Test(arguments: [
        ("a&b=c", "a%26b%3Dc"), ("?/#", "%3F%2F%23"), ("50%", "50%25"), ("é", "%C3%A9"),
        ("🚀", "%F0%9F%9A%80"), ("-._~", "-._~"),
    ])
    func namesAndValuesArePercentEncoded(raw: String, encoded: String) throws {
        let body = try encoder.encode([raw: .string(raw)])
        #expect(body == Data("\(encoded)=\(encoded)".utf8))
    }

    @Test func bodyMatchesTheQueryEncoder() throws {
        let arguments: [String: Argument] = [
            "q": "a b+c", "n": 1.5, "i": [1, 2], "d": .date(Date(timeIntervalSince1970: 1.5)), "b": true,
            "é": "😀", "skip": .undefined,
        ]
        let body = try encoder.encode(arguments)
        #expect(body.utf8Text == "b=true&d=1500&i=1&i=2&n=1.5&q=a%20b%2Bc&%C3%A9=%F0%9F%98%80")
        #expect(body.utf8Text == (try QueryEncoder().encode(arguments)))
    }

    @Test func valuesAreFormattedLikeEveryEncoder() throws {
        let arguments: [String: Argument] = [
            "double": 2.0, "half": 1.5, "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123)),
            "yes": true, "no": false, "int": -3,
        ]
        #expect(
            try encoder.encode(arguments).utf8Text
                == "date=1700000000123&double=2.0&half=1.5&int=-3&no=false&yes=true"
        )
    }

    @Test func emptyKeyThrows() {
        #expect(throws: ArgumentEncodingError.emptyKey) {
            try encoder.encode(["": 1])
        }
    }

    @Test func nonFiniteNumberThrowsWithItsKey() {
        #expect(throws: ArgumentEncodingError.nonFiniteNumber("ratio")) {
            try encoder.encode(["ratio": .number(.infinity)])
        }
    }

    @Test func fileThrowsFileNotAllowedWithItsKey() {
        #expect(throws: ArgumentEncodingError.fileNotAllowed("photo")) {
            try encoder.encode(["name": "x", "photo": .file(URL(fileURLWithPath: "/tmp/p.png"))])
        }
    }
}
