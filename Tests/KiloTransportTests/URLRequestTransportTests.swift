import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct URLRequestTransportTests {
    private let url = URL(string: "https://api.example.com/users/9?expand=true&q=a%2Bb")!

    @Test(arguments: [HTTPMethod.get, .post, .put, .patch, .delete, .head, .options, HTTPMethod(rawValue: "purge")])
    func methodIsCopied(method: HTTPMethod) {
        let request = URLRequest(TransportRequest(method: method, url: url))
        #expect(request.httpMethod == method.rawValue)
    }

    @Test func urlIsCopiedWithItsQuery() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.url == url)
        #expect(request.url?.absoluteString == "https://api.example.com/users/9?expand=true&q=a%2Bb")
    }

    @Test func headersAreCopied() {
        let headers: HTTPHeaders = ["Accept": "application/json", "X-Token": "abc", "x-lower": "1"]
        let request = URLRequest(TransportRequest(method: .get, url: url, headers: headers))
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "x-token") == "abc")
        #expect(request.value(forHTTPHeaderField: "X-Lower") == "1")
        #expect(request.allHTTPHeaderFields?.count == 3)
    }

    @Test func requestWithoutBodyGetsNoContentType() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func timeoutIsCopiedWhenGiven() {
        let request = URLRequest(TransportRequest(method: .get, url: url, timeoutInterval: 7))
        #expect(request.timeoutInterval == 7)
    }

    @Test func timeoutKeepsURLRequestsDefaultWhenNil() {
        let request = URLRequest(TransportRequest(method: .get, url: url))
        #expect(request.timeoutInterval == URLRequest(url: url).timeoutInterval)
    }

    @Test func dataBodyBecomesHTTPBody() {
        let body = Data(#"{"name":"Ann"}"#.utf8)
        let request = URLRequest(
            TransportRequest(
                method: .post,
                url: url,
                headers: ["Content-Type": "application/json"],
                body: .data(body)
            )
        )
        #expect(request.httpBody == body)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func fileBodyIsLeftForAnUploadTask() {
        let file = URL(fileURLWithPath: "/tmp/kilo-never-read.bin")
        let request = URLRequest(
            TransportRequest(method: .put, url: url, headers: ["Content-Type": "image/png"], body: .file(file))
        )
        #expect(request.httpBody == nil)
        #expect(request.httpBodyStream == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "image/png")
    }

    @Test(arguments: [
        TransportRequest.Body.data(Data([1, 2, 3])),
        .data(Data()),
        .file(URL(fileURLWithPath: "/tmp/kilo-never-read.bin")),
    ])
    func bodyWithoutContentTypeIsLabelledOctetStream(body: TransportRequest.Body) {
        let request = URLRequest(TransportRequest(method: .post, url: url, body: body))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    @Test func contentTypeInAnyCaseIsKept() {
        let request = URLRequest(
            TransportRequest(
                method: .post,
                url: url,
                headers: ["content-type": "text/csv"],
                body: .data(Data("a,b".utf8))
            )
        )
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/csv")
        #expect(request.allHTTPHeaderFields?.count == 1)
    }
}
