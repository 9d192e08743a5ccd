import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore
import NIOHTTP1
import Testing

@testable import KiloAsyncHTTPClient

/// The conversion between Kilo's requests and responses and the client's, without a network.
@Suite struct RequestConversionTests {
    private let url = URL(string: "https://api.example.com/items?page=2&q=a%20b")!

    @Test func methodURLAndHeadersAreCarriedOver() {
        let request = TransportRequest(
            method: .patch,
            url: url,
            headers: ["X-Token": "s3cr3t", "Accept": "application/json"]
        )
        let converted = HTTPClientRequest(request, body: nil)
        #expect(converted.method == .PATCH)
        #expect(converted.url == "https://api.example.com/items?page=2&q=a%20b")
        #expect(converted.headers.map { "\($0.name): \($0.value)" } == ["X-Token: s3cr3t", "Accept: application/json"])
        #expect(converted.body == nil)
    }

    @Test func aMethodOutsideTheCommonOnesIsSentByName() {
        let converted = HTTPClientRequest(TransportRequest(method: HTTPMethod(rawValue: "purge"), url: url), body: nil)
        #expect(converted.method.rawValue == "PURGE")
    }

    @Test(arguments: [TransportRequest.Body.data(Data("x".utf8)), .data(Data()), .file(URL(fileURLWithPath: "/a"))])
    func aBodyWithoutContentTypeIsLabelledOctetStream(body: TransportRequest.Body) {
        let converted = HTTPClientRequest(TransportRequest(method: .post, url: url, body: body), body: nil)
        #expect(converted.headers["Content-Type"] == ["application/octet-stream"])
    }

    @Test func aGivenContentTypeIsKept() {
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["content-type": "application/json"],
            body: .data(Data("{}".utf8))
        )
        #expect(HTTPClientRequest(request, body: nil).headers["Content-Type"] == ["application/json"])
    }

    @Test func noBodyMeansNoContentType() {
        #expect(HTTPClientRequest(TransportRequest(method: .get, url: url), body: nil).headers["Content-Type"] == [])
    }

    /// As libcurl does for Linux's `URLSession`: percent-decoded, an empty part as empty, and
    /// only when the request has no `Authorization` of its own.
    @Test(arguments: [
        ("https://user:passwd@api.example.com/", "Basic dXNlcjpwYXNzd2Q="),  // user:passwd
        ("https://us%40er:p%3Ass@api.example.com/", "Basic dXNAZXI6cDpzcw=="),  // us@er:p:ss
        ("https://user@api.example.com/", "Basic dXNlcjo="),  // user:
        ("https://:passwd@api.example.com/", "Basic OnBhc3N3ZA=="),  // :passwd
    ])
    func credentialsInTheURLBecomeBasicAuthorization(url: String, authorization: String) throws {
        let url = try #require(URL(string: url))
        let converted = HTTPClientRequest(TransportRequest(method: .get, url: url), body: nil)
        #expect(converted.headers["Authorization"] == [authorization])
        let given = TransportRequest(method: .get, url: url, headers: ["authorization": "Bearer t"])
        #expect(HTTPClientRequest(given, body: nil).headers["Authorization"] == ["Bearer t"])
    }

    @Test func aURLWithoutCredentialsAddsNoAuthorization() {
        #expect(HTTPClientRequest(TransportRequest(method: .get, url: url), body: nil).headers["Authorization"] == [])
    }

    @Test(arguments: ["a\u{1}b", "bell\u{7}", "del\u{7F}", "esc\u{1B}[0m"])
    func controlCharactersInValuesAreRejectedBeforeSending(value: String) {
        #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try HTTPClientRequest.validateValues(of: ["X-Token": value])
        }
    }

    @Test(arguments: ["tab\there", "Grüße", "a, b; c=\"d\"", ""])
    func tabsAndNonASCIIValuesAreAllowed(value: String) throws {
        try HTTPClientRequest.validateValues(of: ["X-Token": value])
    }

    @Test func repeatedResponseFieldsAreJoinedWithACommaInArrivalOrder() {
        let received: NIOHTTP1.HTTPHeaders = [
            "Set-Cookie": "a=1", "Content-Type": "text/plain", "set-cookie": "b=2", "Vary": "Accept",
            "SET-COOKIE": "c=3",
        ]
        let headers = KiloTransport.HTTPHeaders(received)
        #expect(headers["set-cookie"] == "a=1, b=2, c=3")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.map(\.name) == ["Set-Cookie", "Content-Type", "Vary"])
    }

    @Test(arguments: [
        (TimeInterval?.none, Int64?.none), (0, nil), (-1, nil), (.infinity, nil), (.nan, nil), (0.25, 250_000_000),
        (60, 60_000_000_000),
    ])
    func timeoutIntervalsBecomeIdleIntervals(timeout: TimeInterval?, nanoseconds: Int64?) {
        #expect(IdleTimer.interval(for: timeout)?.nanoseconds == nanoseconds)
    }

    @Test func theRecommendedConfigurationLeavesRedirectsToTheTransportAndFailsFast() {
        let configuration = AsyncHTTPClientTransport.recommendedConfiguration
        #expect(configuration.connectionPool.retryConnectionEstablishment == false)
        #expect(configuration.timeout.connect == .seconds(60))
        #expect(configuration.timeout.read == .seconds(60))
    }
}
