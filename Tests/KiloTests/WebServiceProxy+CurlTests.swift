import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyCurlTests {
    @Test func theCommandIsRedactedByDefaultAndNothingIsSent() async throws {
        let transport = FakeTransport()  // fails loudly if anything is sent
        let proxy = makeProxy(transport)
        proxy.headers = ["Authorization": "Bearer secret-token"]
        let command = try proxy.curlCommand(.post, path: "login", arguments: ["user": "me", "password": "pw"])
        #expect(
            command == """
                curl --globoff --request POST 'https://api.example.com/v1/login' \\
                  -H 'Authorization: Bearer REDACTED' \\
                  -H 'Accept: application/json' \\
                  -H 'Content-Type: application/x-www-form-urlencoded' \\
                  -H 'User-Agent:' -H 'Expect:' \\
                  --data-binary 'password=REDACTED&user=me'
                """
        )
        #expect(await transport.requests.isEmpty)
    }

    @Test func unredactedTheCommandHasTheCallsQueryAndHeaders() throws {
        let proxy = makeProxy(FakeTransport())
        proxy.headers = ["X-Api-Key": "k"]
        let command = try proxy.curlCommand(
            .get,
            path: "items",
            arguments: ["token": "t", "page": 2],
            returningJSON: false,
            redacting: .none
        )
        #expect(
            command == """
                curl --globoff --request GET 'https://api.example.com/v1/items?page=2&token=t' \\
                  -H 'X-Api-Key: k' \\
                  -H 'Accept:' -H 'User-Agent:'
                """
        )
    }

    @Test func badInputThrowsAsTheCallWould() {
        #expect(throws: ArgumentEncodingError.self) {
            _ = try makeProxy(FakeTransport()).curlCommand(.get, path: "items", arguments: ["": 1])
        }
    }
}
