import Foundation
import KiloTransport
import Testing

@Suite struct TransportRequestTests {
    private let url = URL(string: "https://api.example.com/users")!

    @Test(arguments: ["GET", "propfind", "M-SEARCH", "X_CUSTOM~1"])
    func methodThatIsATokenIsAccepted(name: String) throws {
        try TransportRequest(method: HTTPMethod(rawValue: name), url: url).validate()
    }

    /// A method goes on the request line as it is: a space or a line break would rewrite the
    /// request.
    @Test(arguments: ["", "GET X", "GET /evil HTTP/1.1\r\nX-Injected: 1\r\nX-Pad:", "GET\n", "GÉT", "GET:"])
    func methodThatIsNotATokenIsRejected(name: String) {
        let method = HTTPMethod(rawValue: name)
        #expect(throws: RequestError.invalidMethod(method.rawValue)) {
            try TransportRequest(method: method, url: url).validate()
        }
    }

    @Test func headersAreChecked() {
        #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try TransportRequest(method: .get, url: url, headers: ["X-Token": "a\r\nb"]).validate()
        }
        #expect(throws: RequestError.invalidHeaderName("X Token")) {
            try TransportRequest(method: .get, url: url, headers: ["X Token": "a"]).validate()
        }
    }

    @Test(arguments: [nil, 0.001, 0.5, 30, 1e20, .infinity] as [TimeInterval?])
    func positiveOrInfiniteTimeoutIsAccepted(timeout: TimeInterval?) throws {
        try TransportRequest(method: .get, url: url, timeoutInterval: timeout).validate()
    }

    @Test(arguments: [0, -0.0, -1, -.infinity, .nan] as [TimeInterval])
    func timeoutThatIsNotPositiveIsRejected(timeout: TimeInterval) {
        #expect(throws: RequestError.invalidTimeout(timeout)) {
            try TransportRequest(method: .get, url: url, timeoutInterval: timeout).validate()
        }
    }

    /// `URLSession` fails a `GET` with a body with `URLError.dataLengthExceedsMaximum`, on every
    /// platform, and on Linux sends a `HEAD` without its body: every transport refuses both before
    /// sending.
    @Test(arguments: [TransportRequest.Body.data(Data("x".utf8)), .file(URL(fileURLWithPath: "/tmp/body"))])
    func getOrHeadWithABodyIsRejected(body: TransportRequest.Body) {
        #expect(throws: RequestError.bodyNotAllowed("GET")) {
            try TransportRequest(method: .get, url: url, body: body).validate()
        }
        #expect(throws: RequestError.bodyNotAllowed("GET")) {
            try TransportRequest(method: HTTPMethod(rawValue: "get"), url: url, body: body).validate()
        }
        #expect(throws: RequestError.bodyNotAllowed("HEAD")) {
            try TransportRequest(method: .head, url: url, body: body).validate()
        }
    }

    @Test func getOrHeadWithAnEmptyBodyAndOtherMethodsWithABodyAreAccepted() throws {
        try TransportRequest(method: .get, url: url, body: .data(Data())).validate()
        try TransportRequest(method: .head, url: url, body: .data(Data())).validate()
        for method in [HTTPMethod.post, .put, .patch, .delete, .options, HTTPMethod(rawValue: "QUERY")] {
            try TransportRequest(method: method, url: url, body: .data(Data("x".utf8))).validate()
        }
    }
}
