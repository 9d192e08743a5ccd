import Foundation
import KiloTransport
import Testing

@Suite struct RedactionTests {
    @Test(arguments: [
        "api_key", "X-Api-Key", "apiKey", "APIKey", "access_token", "client-secret", "password", "Signature",
        "X-Amz-Signature", "X-Amz-Security-Token", "apikey", "passwd", "tokens", "key2", "sessionId", "API_KEY",
    ])
    func secretNames(name: String) {
        #expect(Redaction.standard.isSecretName(name))
    }

    @Test(arguments: ["keyboard", "monkey", "tokenizer", "page", "q", "passage", ""])
    func namesThatAreNotSecret(name: String) {
        #expect(!Redaction.standard.isSecretName(name))
    }

    @Test func noneHidesNothing() {
        let url = "https://me:pw@example.com/a?token=t#access_token=x"
        #expect(Redaction.none.redact(url: url) == url)
        #expect(Redaction.none.redactedValue("Bearer t", forField: "Authorization") == "Bearer t")
        #expect(Redaction.none.hidesNothing)
        #expect(!Redaction.standard.hidesNothing)
    }

    @Test func queryValuesOfSecretNamesAreHiddenEachTime() {
        let url = URL(string: "https://example.com/items?page=2&api_key=k1&keyboard=1&api_key=k2&apiKey=k3")!
        #expect(
            Redaction.standard.redact(url)
                == "https://example.com/items?page=2&api_key=REDACTED&keyboard=1&api_key=REDACTED&apiKey=REDACTED"
        )
    }

    @Test func percentEncodedNamesAreDecodedBeforeTheyAreMatched() {
        #expect(
            Redaction.standard.redact(url: "https://example.com/?api%5Fkey=k&%61ccess+token=t&x%3D=1")
                == "https://example.com/?api%5Fkey=REDACTED&%61ccess+token=REDACTED&x%3D=1"
        )
        // An escape that does not decode: matched as it is written.
        #expect(Redaction.standard.redact(url: "http://h/?token%FF=t") == "http://h/?token%FF=REDACTED")
    }

    @Test func fragmentParametersAreHidden() {
        #expect(
            Redaction.standard.redact(url: "https://example.com/cb#access_token=t&state=s")
                == "https://example.com/cb#access_token=REDACTED&state=s"
        )
        #expect(
            Redaction.standard.redact(url: "https://example.com/cb?a=1#token=t?x=1")
                == "https://example.com/cb?a=1#token=REDACTED"
        )
    }

    @Test func userInfoIsHiddenWholeWithAnEncodedAt() {
        #expect(
            Redaction.standard.redact(URL(string: "https://me%40corp.com:p%40ss@example.com:8443/x?q=1")!)
                == "https://REDACTED:REDACTED@example.com:8443/x?q=1"
        )
        #expect(Redaction.standard.redact(url: "https://apikey@example.com/") == "https://REDACTED@example.com/")
        // An `@` in the path is not user info.
        #expect(Redaction.standard.redact(url: "https://example.com/@me") == "https://example.com/@me")
    }

    @Test func textThatDoesNotParseAsAURLIsRedactedToo() {
        #expect(URL(string: "http://me:p w@exa mple.com/?token=t t") == nil)
        #expect(
            Redaction.standard.redact(url: "http://me:p w@exa mple.com/?token=t t")
                == "http://REDACTED:REDACTED@exa mple.com/?token=REDACTED"
        )
        // A raw `?` or `#` in the password: hidden up to the last `@` before the path.
        #expect(
            Redaction.standard.redact(url: "http://me:p?a#b@host/p?secret=s")
                == "http://REDACTED:REDACTED@host/p?secret=REDACTED"
        )
        #expect(Redaction.standard.redact(url: "no scheme?password=x") == "no scheme?password=REDACTED")
    }

    @Test func credentialFieldsKeepTheirSchemeOrCookieNames() {
        let redaction = Redaction.standard
        #expect(redaction.redactedValue("Bearer abc", forField: "authorization") == "Bearer REDACTED")
        #expect(redaction.redactedValue("abc", forField: "AUTHORIZATION") == "REDACTED")
        #expect(redaction.redactedValue("Basic dTpw", forField: "Proxy-Authorization") == "Basic REDACTED")
        #expect(redaction.redactedValue("a=1; b=2", forField: "cookie") == "a=REDACTED; b=REDACTED")
        #expect(
            redaction.redactedValue("sid=abc; Path=/; HttpOnly", forField: "Set-Cookie")
                == "sid=REDACTED; Path=/; HttpOnly"
        )
        #expect(redaction.redactedValue("k", forField: "x-API-key") == "REDACTED")
        #expect(redaction.redactedValue("text/plain", forField: "Content-Type") == "text/plain")
    }

    @Test func headersKeepTheirNamesAndOrder() {
        let headers: HTTPHeaders = ["X-Trace": "1", "X-Auth-Token": "t", "Cookie": "s=v"]
        let redacted = Redaction.standard.redact(headers)
        #expect(redacted.map(\.name) == ["X-Trace", "X-Auth-Token", "Cookie"])
        #expect(redacted.map(\.value) == ["1", "REDACTED", "s=REDACTED"])
    }

    @Test func jsonMembersWithSecretNamesAreHiddenAtAnyDepth() {
        let json = """
            {"user": "ann", "password" : "p\\"w", "nested": {"apiKey": 12.5e3, "list": [{"token": null}]}, \
            "keys": [1, {"a": "}"}], "api\\u005Fkey": true, "note": "password: not a key", "x": "token"}
            """
        let redacted = String(decoding: Redaction.standard.redact(json: Data(json.utf8)), as: UTF8.self)
        #expect(
            redacted == """
                {"user": "ann", "password" : "REDACTED", "nested": {"apiKey": "REDACTED", "list": [{"token": "REDACTED"}]}, \
                "keys": "REDACTED", "api\\u005Fkey": "REDACTED", "note": "password: not a key", "x": "token"}
                """
        )
        #expect(Redaction.none.redact(json: Data(json.utf8)) == Data(json.utf8))
        // Text that is not quite JSON: redacted as far as it goes.
        let unterminated = Redaction.standard.redact(json: Data(#"{"secret": "unterminated"#.utf8))
        #expect(unterminated == Data(#"{"secret": "REDACTED""#.utf8))
    }

    @Test func customRules() {
        let redaction = Redaction(credentialFields: ["X-Session"], secretWords: ["pin"], replacement: "***")
        #expect(redaction.redact(url: "https://h/?pin=1&token=2") == "https://h/?pin=***&token=2")
        #expect(redaction.redactedValue("x", forField: "x-session") == "***")
        #expect(redaction.redactedValue("Bearer t", forField: "Authorization") == "Bearer t")
        var changed = Redaction.standard
        changed.secretWords.insert("PIN")
        changed.credentialFields.insert("X-Session")
        #expect(changed.isSecretName("user_pin") && changed.isSecretField("x-SESSION"))
    }
}
