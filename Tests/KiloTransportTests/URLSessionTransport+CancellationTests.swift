import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a cancelled request sends: checked against the fault server's count of the requests it
/// received, on 127.0.0.1.
@Suite(
    .needsFaultServer,
    .timeLimit(.minutes(1))
)
struct URLSessionTransportCancellationTests {
    private static let session = URLSession(configuration: .ephemeral)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private let baseURL: URL

    init() throws {
        baseURL = try FaultServer.baseURL()
    }

    private func transport(ownSession: Bool) -> URLSessionTransport {
        ownSession ? Self.owningTransport : URLSessionTransport(session: Self.session)
    }

    /// How many requests with `key` in their query the fault server has received.
    private func count(_ key: String) async throws -> Int {
        struct Counted: Decodable { var count: Int }
        let url = try #require(URL(string: "count?key=\(key)", relativeTo: baseURL))
        let response = try await URLSessionTransport(session: Self.session).send(
            TransportRequest(method: .get, url: url)
        )
        return try JSONDecoder().decode(Counted.self, from: response.body).count
    }

    /// A request whose task is cancelled before `send` is called fails with `URLError.cancelled`
    /// and never reaches the server: a cancelled POST must not be processed. Before the fix, the
    /// transfer resumed its `URLSessionTask` and only then cancelled it, so some of these
    /// requests reached the server, and some even came back with the server's response.
    @Test(arguments: [false, true], [false, true])
    func aRequestCancelledBeforeItIsSentNeverReachesTheServer(ownSession: Bool, withProgress: Bool) async throws {
        let key = "cancelled-before-send-\(UUID().uuidString.prefix(8))"
        let request = TransportRequest(
            method: .post,
            url: try #require(URL(string: "echo?key=\(key)", relativeTo: baseURL)),
            body: .data(Data("order=1".utf8)),
            progress: withProgress ? ProgressObserver { _ in } : nil
        )
        let transport = self.transport(ownSession: ownSession)
        for _ in 0..<20 {
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.send(request)
            }
            let error = await #expect(throws: URLError.self) { try await task.value }
            #expect(error?.code == .cancelled)
        }
        // Every request has ended: one that was sent has been received by now.
        #expect(try await count(key) == 0)
    }

    #if canImport(FoundationNetworking)
        /// A request cancelled just after it started, while Linux's URLSession was still looking
        /// up its cached response on a background queue, crashed the process (`Trying to access a
        /// behaviour for a task that in not in the registry`) in every run of this loop. A session
        /// of Kilo's own answers the lookup at once, so every request ends, cancelled or not.
        @Test func requestsCancelledAsTheyStartOnAnOwnedSessionWithACacheAllEnd() async throws {
            let configuration = URLSessionConfiguration.ephemeral
            #expect(configuration.urlCache != nil, "the crash needs a URL cache")
            let transport = URLSessionTransport(configuration: configuration)
            let request = TransportRequest(method: .get, url: try #require(URL(string: "ok", relativeTo: baseURL)))
            var cancelled = 0
            for index in 0..<600 {
                let task = Task { try await transport.send(request) }
                if index.isMultiple(of: 2) {
                    await Task.yield()
                } else {
                    try await Task.sleep(for: .microseconds(50))
                }
                task.cancel()
                do {
                    #expect(try await task.value.statusCode == 200)
                } catch let error as URLError where error.code == .cancelled {
                    cancelled += 1
                }
            }
            #expect(cancelled > 0, "the race was run: some requests were cancelled")
        }

        /// The cache of a session of Kilo's own keeps its responses in the configuration's cache,
        /// and a fresh response found there is used without asking the server.
        @Test func anOwnedSessionKeepsItsCachedResponsesInYourCacheAndUsesThem() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kilo-cache-\(UUID().uuidString)",
                isDirectory: true
            )
            defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
            let yours = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: directory.path)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = yours
            let transport = URLSessionTransport(configuration: configuration)
            let key = "cached-\(UUID().uuidString.prefix(8))"
            let url = try #require(URL(string: "ok?key=\(key)", relativeTo: baseURL)?.absoluteURL)
            let response = try #require(
                HTTPURLResponse(
                    url: url,
                    statusCode: 200,
                    httpVersion: "HTTP/1.1",
                    headerFields: [
                        "Content-Type": "application/json", "Cache-Control": "max-age=3600",
                        "Date": Self.httpDate(Date()),
                    ]
                )
            )
            let cache = try #require(transport.session.configuration.urlCache)
            cache.storeCachedResponse(
                CachedURLResponse(response: response, data: Data(#"{"cached":true}"#.utf8)),
                for: URLRequest(url: url)
            )
            #expect(yours.cachedResponse(for: URLRequest(url: url)) != nil)
            let received = try await transport.send(TransportRequest(method: .get, url: url))
            #expect(String(decoding: received.body, as: UTF8.self) == #"{"cached":true}"#)
            #expect(try await count(key) == 0)
        }

        private static func httpDate(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: date)
        }
    #endif
}
