import KiloTransport
import Testing

@Suite struct HTTPMethodTests {
    @Test(arguments: [
        ("get", "GET"), ("Post", "POST"), ("pAtCh", "PATCH"), ("PROPFIND", "PROPFIND"), ("purge", "PURGE"),
    ])
    func nameIsUppercased(name: String, expected: String) {
        let method = HTTPMethod(rawValue: name)
        #expect(method.rawValue == expected)
        #expect(method.description == expected)
    }

    @Test func methodsMadeFromNamesInAnyCaseAreEqual() {
        #expect(HTTPMethod(rawValue: "get") == .get)
        #expect(HTTPMethod(rawValue: "Delete") == .delete)
        #expect(Set([HTTPMethod(rawValue: "post"), .post]).count == 1)
    }

    @Test func staticMembersSpellTheirNames() {
        let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options]
        #expect(methods.map(\.rawValue) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    }

    @Test(arguments: [
        (HTTPMethod.get, true), (.head, true), (.options, true), (.put, true), (.delete, true),
        (.post, false), (.patch, false), (HTTPMethod(rawValue: "connect"), false),
    ])
    func idempotenceFollowsRFC9110(method: HTTPMethod, isIdempotent: Bool) {
        #expect(method.isIdempotent == isIdempotent)
    }

    @Test func idempotenceIgnoresTheCaseTheNameWasGivenIn() {
        #expect(HTTPMethod(rawValue: "put").isIdempotent)
        #expect(!HTTPMethod(rawValue: "post").isIdempotent)
    }
}
