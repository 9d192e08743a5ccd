import Foundation
import KiloTransport
import Testing

@Suite struct HTTPHeadersTests {
    @Test(arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func getMatchesNamesInAnyCase(name: String) {
        let headers: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(headers[name] == "text/plain")
    }

    /// Only ASCII letters fold: names of one length that differ in any other byte, in any place,
    /// are different fields (`@` and `` ` `` differ by the bit that folds a letter).
    @Test(arguments: [("X-Ab", "X-Ac"), ("X-A@", "X-A`"), ("X-É", "X-é"), ("Xa", "Ya"), ("A", "a ")])
    func getTellsApartNamesThatDifferInAnythingButLetterCase(stored: String, asked: String) {
        let headers = HTTPHeaders([stored: "1"])
        #expect(headers[asked] == nil)
        #expect(headers[stored] == "1")
    }

    @Test func getReturnsNilForAMissingName() {
        let headers: HTTPHeaders = ["Accept": "*/*"]
        #expect(headers["Content-Type"] == nil)
        #expect(HTTPHeaders()["Accept"] == nil)
    }

    @Test func setReplacesTheValueButKeepsTheFirstSpellingAndPosition() {
        var headers: HTTPHeaders = ["X-First": "1", "Content-Type": "text/plain", "X-Last": "3"]
        headers["CONTENT-TYPE"] = "application/json"
        #expect(headers.count == 3)
        #expect(headers.map(\.name) == ["X-First", "Content-Type", "X-Last"])
        #expect(headers["content-type"] == "application/json")
    }

    @Test func setAppendsANewNameAtTheEnd() {
        var headers: HTTPHeaders = ["B": "2"]
        headers["a"] = "1"
        #expect(headers.map(\.name) == ["B", "a"])
        #expect(headers.map(\.value) == ["2", "1"])
    }

    @Test func settingNilRemovesTheFieldInAnyCase() {
        var headers: HTTPHeaders = ["Accept": "*/*", "X-Token": "abc"]
        headers["x-token"] = nil
        #expect(headers.count == 1)
        #expect(headers["X-Token"] == nil)
        #expect(headers.map(\.name) == ["Accept"])
        headers["Missing"] = nil
        #expect(headers.count == 1)
    }

    @Test func fieldsKeepTheirOrderAndSpelling() {
        let headers: HTTPHeaders = ["zeta": "1", "Alpha": "2", "X-MiXeD": "3"]
        #expect(headers.map(\.name) == ["zeta", "Alpha", "X-MiXeD"])
        #expect(headers.description == "zeta: 1\nAlpha: 2\nX-MiXeD: 3")
        #expect(headers.dictionary == ["zeta": "1", "Alpha": "2", "X-MiXeD": "3"])
    }

    @Test func dictionaryLiteralLetsALaterNameOfAnyCaseReplaceTheValue() {
        let headers: HTTPHeaders = ["Accept": "text/plain", "ACCEPT": "application/json"]
        #expect(headers.count == 1)
        #expect(headers["accept"] == "application/json")
    }

    @Test func dictionaryInitializerKeepsEveryField() {
        let headers = HTTPHeaders(["b": "2", "a": "1", "C": "3"])
        #expect(headers.count == 3)
        #expect(headers["A"] == "1")
        #expect(headers["B"] == "2")
        #expect(headers["c"] == "3")
    }

    @Test func emptyHeaders() {
        let headers = HTTPHeaders()
        #expect(headers.isEmpty)
        #expect(headers.count == 0)
        #expect(headers.description == "")
        #expect(headers == [:])
        #expect(!HTTPHeaders(["A": "1"]).isEmpty)
    }

    @Test func mergeAddsNewFieldsAndLetsOtherWin() {
        var headers: HTTPHeaders = ["Accept": "*/*", "Content-Type": "text/plain"]
        headers.merge(["content-type": "application/json", "X-Token": "abc"])
        #expect(headers.map(\.name) == ["Accept", "Content-Type", "X-Token"])
        #expect(headers["Content-Type"] == "application/json")
        #expect(headers["x-token"] == "abc")
        #expect(headers["Accept"] == "*/*")
    }

    @Test func equalityIgnoresNameCaseAndOrder() {
        let lhs: HTTPHeaders = ["Content-Type": "text/plain", "Accept": "*/*"]
        let rhs: HTTPHeaders = ["accept": "*/*", "CONTENT-TYPE": "text/plain"]
        #expect(lhs == rhs)
        #expect(lhs.hashValue == rhs.hashValue)
        #expect(Set([lhs, rhs]).count == 1)
    }

    @Test func equalityComparesValuesExactly() {
        let lhs: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(lhs != ["Content-Type": "TEXT/PLAIN"])
        #expect(lhs != ["Content-Type": "text/plain", "Accept": "*/*"])
        #expect(["Content-Type": "text/plain", "Accept": "*/*"] != lhs)
        #expect(lhs != [:])
    }

    @Test func validHeadersPassValidation() throws {
        let headers: HTTPHeaders = [
            "Content-Type": "application/json; charset=utf-8",
            "X-Token_1.2~!#$%&'*+^`|": "a value with spaces, \"quotes\" and caf\u{E9}",
            "Empty": "",
        ]
        try headers.validate()
    }

    @Test(arguments: ["", "X Token", "X:Token", "Caf\u{E9}", "X-\u{1F600}", "X\tToken", "X(Token)", "X\r\nY"])
    func invalidNameThrowsInvalidHeaderName(name: String) {
        var headers: HTTPHeaders = ["Accept": "*/*"]
        headers[name] = "value"
        #expect(throws: RequestError.invalidHeaderName(name)) {
            try headers.validate()
        }
    }

    @Test(arguments: ["a\rb", "a\nb", "a\r\nX-Injected: 1", "a\u{0}b", "\n", "trailing\r"])
    func lineBreakOrNULInValueThrowsInvalidHeaderValue(value: String) {
        let headers: HTTPHeaders = ["Accept": "*/*", "X-Token": value]
        #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try headers.validate()
        }
    }

    /// Every byte, alone and inside a longer name, against RFC 9110's `tchar` list written out.
    @Test func aNameMayHoldExactlyTheTokenCharacters() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let character = String(UnicodeScalar(byte))
            for name in [character, "X-" + character + "-Name"] {
                var headers: HTTPHeaders = [:]
                headers[name] = "value"
                if tchars.contains(byte) {
                    #expect(throws: Never.self, "byte \(byte)") { try headers.validate() }
                } else {
                    #expect(throws: RequestError.invalidHeaderName(name), "byte \(byte)") { try headers.validate() }
                }
            }
        }
    }

    @Test func namesAndValuesFromFoundationStringsAreCheckedAlike() {
        // On Darwin these strings stay backed by NSString, not stored as UTF-8: the checks must
        // see the same bytes.
        let name = NSString(string: "X-Bridged").description
        let badValue = NSString(string: "a\r\nX-Injected: 1").description
        let good: HTTPHeaders = [name: NSString(string: "caf\u{E9}").description]
        #expect(throws: Never.self) { try good.validate() }
        let bad: HTTPHeaders = [name: badValue]
        #expect(throws: RequestError.invalidHeaderValue(name)) { try bad.validate() }
        let badName: HTTPHeaders = [NSString(string: "X Bridged").description: "v"]
        #expect(throws: RequestError.invalidHeaderName("X Bridged")) { try badName.validate() }
    }
}
