import Foundation
import KiloTransport
import Testing

@Suite struct FakeTransportTests {
    private let baseURL = URL(string: "https://api.example.com/")!

    private func request(
        _ method: HTTPMethod,
        _ path: String,
        headers: HTTPHeaders = [:],
        body: TransportRequest.Body? = nil
    ) -> TransportRequest {
        TransportRequest(method: method, url: baseURL.appendingPathComponent(path), headers: headers, body: body)
    }

    @Test func recordsRequestsInOrder() async throws {
        let transport = FakeTransport(body: "ok")
        _ = try await transport.send(request(.get, "users"))
        _ = try await transport.send(request(.post, "users", body: .data(Data("name=Ann".utf8))))
        _ = try await transport.send(request(.delete, "users/1"))
        let requests = await transport.requests
        #expect(requests.map(\.method) == [.get, .post, .delete])
        #expect(requests.map(\.url.path) == ["/users", "/users", "/users/1"])
        #expect(requests[1].body == .data(Data("name=Ann".utf8)))
    }

    @Test func startsWithNoRequests() async {
        #expect(await FakeTransport(body: "").requests.isEmpty)
    }

    @Test(arguments: [
        (#"{"id": 1}"#, "application/json"),
        ("[1, 2]", "application/json"),
        ("no such user", "text/plain; charset=utf-8"),
        (" {\"id\": 1}", "text/plain; charset=utf-8"),
    ])
    func cannedStringBodyGetsAContentType(body: String, contentType: String) async throws {
        let transport = FakeTransport(statusCode: 201, body: body)
        let response = try await transport.send(request(.get, "users"))
        #expect(response.statusCode == 201)
        #expect(response.body == Data(body.utf8))
        #expect(response.headers["content-type"] == contentType)
    }

    @Test func cannedStringBodyKeepsAGivenContentType() async throws {
        let transport = FakeTransport(body: "<p>hi</p>", headers: ["content-type": "text/html", "X-Id": "7"])
        let response = try await transport.send(request(.get, "page"))
        #expect(response.headers == ["Content-Type": "text/html", "X-Id": "7"])
    }

    @Test func emptyCannedStringBodyGetsNoContentType() async throws {
        let response = try await FakeTransport(statusCode: 204, body: "").send(request(.get, "users/1"))
        #expect(response.statusCode == 204)
        #expect(response.body.isEmpty)
        #expect(response.headers.isEmpty)
    }

    @Test func cannedStringResponseDefaultsTo200() async throws {
        let response = try await FakeTransport(body: "ok").send(request(.get, "ping"))
        #expect(response.statusCode == 200)
    }

    @Test func cannedDataResponseIsReturnedAsIs() async throws {
        let body = Data([0xFF, 0x00, 0x7B])
        let transport = FakeTransport(statusCode: 500, data: body, headers: ["X-Trace": "abc"])
        let response = try await transport.send(request(.get, "boom"))
        #expect(response == TransportResponse(statusCode: 500, headers: ["X-Trace": "abc"], body: body))
    }

    @Test func handlerComputesEachResponse() async throws {
        let transport = FakeTransport { request in
            TransportResponse(statusCode: 200, body: Data("\(request.method) \(request.url.path)".utf8))
        }
        let first = try await transport.send(request(.get, "a"))
        let second = try await transport.send(request(.put, "b"))
        #expect(first.body == Data("GET /a".utf8))
        #expect(second.body == Data("PUT /b".utf8))
        #expect(await transport.requests.count == 2)
    }

    @Test func handlerErrorsPropagateAndTheRequestIsStillRecorded() async {
        let transport = FakeTransport { _ in throw URLError(.notConnectedToInternet) }
        let error = await #expect(throws: URLError.self) {
            try await transport.send(request(.get, "users"))
        }
        #expect(error?.code == .notConnectedToInternet)
        #expect(await transport.requests.count == 1)
    }

    /// A handler that waits stands for a request in flight; cancelling it gives what a real
    /// transport gives, so a transport or interceptor of the user's, tested over the fake,
    /// sees the error it will see in production.
    @Test func cancellingAWaitingHandlerThrowsURLErrorCancelled() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let sent = request(.get, "slow")
        let task = Task { try await transport.send(sent) }
        while await transport.requests.isEmpty {
            await Task.yield()
        }
        task.cancel()
        await #expect(throws: URLError(.cancelled)) {
            try await task.value
        }
    }

    @Test func fakeWithoutHandlerThrowsUnexpectedRequestCarryingTheRequest() async {
        let transport = FakeTransport()
        let sent = request(.post, "users", headers: ["Content-Type": "text/plain"], body: .data(Data("x".utf8)))
        let error = await #expect(throws: FakeTransport.UnexpectedRequest.self) {
            try await transport.send(sent)
        }
        #expect(error?.request == sent)
        #expect(await transport.requests == [sent])
    }

    @Test func fileBodyIsRecordedAsData() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-fake-\(UUID().uuidString).bin")
        let contents = Data((0..<1000).map { UInt8($0 % 251) })
        try contents.write(to: file)
        let transport = FakeTransport { request in
            TransportResponse(statusCode: 200, body: try request.bodyData() ?? Data())
        }
        let response = try await transport.send(request(.put, "upload", body: .file(file)))
        try FileManager.default.removeItem(at: file)

        #expect(response.body == contents)
        let recorded = try #require(await transport.requests.first)
        #expect(recorded.body == .data(contents))
        #expect(try recorded.bodyData() == contents)
    }

    /// As from `URLSessionTransport` and `AsyncHTTPClientTransport`: a `URLError` that a retry
    /// policy and the caller's error handling see as they would in production, not the file
    /// system's `CocoaError`.
    @Test(arguments: [
        URL(fileURLWithPath: "/nonexistent/kilo-\(UUID().uuidString).bin"),
        FileManager.default.temporaryDirectory,
    ])
    func unreadableFileBodyThrowsFileDoesNotExistAndIsNotRecorded(file: URL) async {
        let transport = FakeTransport(body: "ok")
        let error = await #expect(throws: URLError.self) {
            try await transport.send(request(.put, "upload", body: .file(file)))
        }
        #expect(error?.code == .fileDoesNotExist)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(await transport.requests.isEmpty)
    }

    @Test(arguments: ["abc\r\nX-Injected: 1", "abc\n", "abc\r", "a\u{0}"])
    func headerValueWithLineBreakIsRejected(value: String) async {
        let transport = FakeTransport(body: "ok")
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) {
            try await transport.send(request(.get, "users", headers: ["X-Token": value]))
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func invalidMethodOrTimeoutIsRejected() async {
        let transport = FakeTransport(body: "ok")
        await #expect(throws: RequestError.invalidMethod("GET X")) {
            try await transport.send(request(HTTPMethod(rawValue: "GET X"), "users"))
        }
        await #expect(throws: RequestError.invalidTimeout(0)) {
            var request = request(.get, "users")
            request.timeoutInterval = 0
            _ = try await transport.send(request)
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func invalidHeaderNameIsRejected() async {
        let transport = FakeTransport(body: "ok")
        await #expect(throws: RequestError.invalidHeaderName("X Token")) {
            try await transport.send(request(.get, "users", headers: ["X Token": "abc"]))
        }
        #expect(await transport.requests.isEmpty)
    }
}
