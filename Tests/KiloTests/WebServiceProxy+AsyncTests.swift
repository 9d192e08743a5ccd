import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyAsyncTests {
    @Test func decodesJSONWithMillisecondDates() async throws {
        let transport = FakeTransport(body: #"[{"name":"Ann","born":1700000000123}]"#)
        let people: [Person] = try await makeProxy(transport).invoke(.get, path: "people")
        #expect(people == [Person(name: "Ann", born: Date(timeIntervalSince1970: 1_700_000_000.123))])
    }

    @Test func anEmptyBodyDecodesToNilForAnOptional() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let person: Person? = try await makeProxy(transport).invoke(.get, path: "people/1")
        #expect(person == nil)
    }

    @Test func anInvalidBodyThrowsDecodingError() async throws {
        let transport = FakeTransport(body: #"{"name": 1}"#)
        await #expect(throws: DecodingError.self) {
            let _: Person = try await makeProxy(transport).invoke(.get, path: "people/1")
        }
    }

    @Test func anErrorStatusThrowsWebServiceErrorWithBodyAndHeaders() async throws {
        let transport = FakeTransport(statusCode: 404, body: "no such user", headers: ["X-Request-Id": "42"])
        let error = await #expect(throws: WebServiceError.self) {
            let _: [Int] = try await makeProxy(transport).invoke(.get, path: "users/9")
        }
        #expect(error?.statusCode == 404)
        #expect(error?.body == Data("no such user".utf8))
        #expect(error?.headers["x-request-id"] == "42")
        #expect(error?.localizedDescription == "no such user")
        #expect(await transport.requests.map(\.url.path) == ["/v1/users/9"])
    }

    @Test func voidInvokeThrowsForAnErrorStatus() async throws {
        let transport = FakeTransport(statusCode: 503, data: Data())
        let error = await #expect(throws: WebServiceError.self) {
            try await makeProxy(transport).invoke(.delete, path: "items/1")
        }
        #expect(error?.localizedDescription == "Service Unavailable")
    }

    @Test func responseHandlerReadsTheContentAndItsType() async throws {
        let transport = FakeTransport(body: "a,b\n1,2\n", headers: ["Content-Type": "text/csv"])
        let rows = try await makeProxy(transport).invoke(.get, path: "table.csv") { content, contentType in
            #expect(contentType == "text/csv")
            return String(decoding: content, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",") }
        }
        #expect(rows == [["a", "b"], ["1", "2"]])
    }

    @Test func responseHandlerCanReadHeaders() async throws {
        let transport = FakeTransport(body: "[]", headers: ["Link": "<https://api.example.com/v1/items?page=2>"])
        let link = try await makeProxy(transport).invoke(.get, path: "items") { _, _, headers in headers["link"] }
        #expect(link == "<https://api.example.com/v1/items?page=2>")
    }

    @Test func responseHandlerErrorsPropagate() async throws {
        struct BadImage: Error {}
        let transport = FakeTransport(data: Data([0xFF]))
        await #expect(throws: BadImage.self) {
            _ = try await makeProxy(transport).invoke(.get, path: "image") { _, _ -> Int in throw BadImage() }
        }
    }

    @Test func transportErrorsPropagateUnchanged() async throws {
        let transport = FakeTransport { _ in throw URLError(.notConnectedToInternet) }
        let error = await #expect(throws: URLError.self) {
            try await makeProxy(transport).invoke(.get, path: "items")
        }
        #expect(error?.code == .notConnectedToInternet)
    }

    @Test func cancellingTheTaskThrowsURLErrorCancelled() async throws {
        let transport = FakeTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return TransportResponse(statusCode: 200)
        }
        let proxy = makeProxy(transport)
        let task = Task { try await proxy.invoke(.get, path: "slow") }
        while await transport.requests.isEmpty {
            await Task.yield()
        }
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test(arguments: [false, true])
    func aStreamedMultipartBodyIsSentFromATemporaryFileThatIsRemovedAfterwards(transportCancels: Bool)
        async throws
    {
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("kilo-tests-\(UUID().uuidString).bin")
        try Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let transport = StreamedBodyTransport(cancels: transportCancels)
        let proxy = makeProxy(transport)
        proxy.encoding = .multipartFormData
        do {
            try await proxy.invoke(.post, path: "upload", arguments: ["file": input])
            #expect(!transportCancels)
        } catch let error as URLError {
            #expect(transportCancels)
            #expect(error.code == .cancelled)
        }
        let sent = try #require(transport.sentFile)
        #expect(sent.existed, "the body's file should exist while the transport sends it")
        #expect(!FileManager.default.fileExists(atPath: sent.url.path), "the temporary body should be removed")
    }

    /// A large file given through a symbolic link is streamed as the file it names, not read into
    /// memory: its size is the file's, not the link's.
    @Test func aLargeFileThroughASymbolicLinkIsStreamed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("large.bin")
        try Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1).write(to: input)
        let link = directory.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: input)
        let transport = StreamedBodyTransport(cancels: false)
        let proxy = makeProxy(transport)
        proxy.encoding = .multipartFormData
        try await proxy.invoke(.post, path: "upload", arguments: ["file": link])
        #expect(transport.sentFile != nil, "the body should have been streamed from a file")
    }

    @Test func oneProxyServesManyTasksAtOnce() async throws {
        let transport = FakeTransport { request in
            let n = request.url.query.flatMap { Int($0.dropFirst(2)) } ?? -1
            return TransportResponse(statusCode: 200, body: Data("\(n * 2)".utf8))
        }
        let proxy = makeProxy(transport)
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for n in 0..<200 {
                group.addTask { (n, try await proxy.invoke(.get, path: "double", arguments: ["n": n])) }
            }
            for try await (n, doubled) in group {
                #expect(doubled == n * 2)
            }
        }
        #expect(await transport.requests.count == 200)
    }
}

/// A transport that takes a request whose body is a file, notes the file and whether it existed
/// then, and answers 200, or throws `CancellationError` as a transport whose task was cancelled may.
private final class StreamedBodyTransport: Transport, @unchecked Sendable {
    // `@unchecked Sendable`: `sent` is only read and written under `lock`.
    private let cancels: Bool
    private let lock = NSLock()
    private var sent: (url: URL, existed: Bool)?

    init(cancels: Bool) {
        self.cancels = cancels
    }

    /// The file the last request's body came from, and whether it existed when it was sent.
    var sentFile: (url: URL, existed: Bool)? {
        lock.withLock { sent }
    }

    func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        guard case .file(let url) = request.body else { throw URLError(.unsupportedURL) }
        let existed = FileManager.default.fileExists(atPath: url.path)
        lock.withLock { sent = (url, existed) }
        if cancels {
            throw CancellationError()
        }
        return StreamedResponse(statusCode: 200)
    }
}
