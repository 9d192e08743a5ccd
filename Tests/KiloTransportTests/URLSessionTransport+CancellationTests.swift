import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a cancelled request sends: checked against the fault server's count of the requests it
/// received, on 127.0.0.1.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["KILO_FAULT_URL"] != nil,
        "needs KILO_FAULT_URL (run Scripts/test.sh)"
    ),
    .timeLimit(.minutes(1))
)
struct URLSessionTransportCancellationTests {
    private static let session = URLSession(configuration: .ephemeral)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private let baseURL: URL

    init() throws {
        let string = try #require(ProcessInfo.processInfo.environment["KILO_FAULT_URL"])
        baseURL = try #require(URL(string: string))
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
}
