import Foundation
import Kilo
import Testing

/// A file body that grows or shrinks while it is sent: the server never receives more bytes than
/// the `Content-Length` the request announced (appended bytes were read as a second request, a
/// way to smuggle one through the transport), and the caller learns that the file changed.
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct ChangingFileBodyTests {
    private struct Read: Decodable {
        var received: Int
        var extra: Int
    }

    /// The file's size: 8 MiB and a little more, which no transport's buffer divides, so that
    /// the read that reaches the announced length could run past it.
    private static let size = (8 << 20) + 1_000

    /// Sends 8 MiB from a file to a server that reads it at about 3 MiB a second, changes the
    /// file's size once the transport has sent its first MiB (not after a fixed time: on a busy
    /// machine the upload may not have begun, and the transport would read the new size), then
    /// has the server read the rest at full speed, so that the body's end is sent at once.
    private func send(changing change: @escaping @Sendable (FileHandle) throws -> Void) async throws
        -> (Result<Read, any Error>, path: String, received: Read, afterChange: Duration)
    {
        let key = FaultServer.makeKey("changing-file")
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data(repeating: 0x61, count: Self.size), named: "body.bin")
        let baseURL = try #require(FaultServer.url)
        let transport = Servers.makeProxy(baseURL: baseURL).transport
        let sent = Protected<Int64>(0)
        let request = TransportRequest(
            method: .put,
            url: try #require(URL(string: "slow-read?key=\(key)", relativeTo: baseURL)?.absoluteURL),
            headers: ["Content-Type": "application/octet-stream"],
            body: .file(file),
            timeoutInterval: 30,
            progress: ProgressObserver { progress in sent.withLock { $0 = progress.bytesSent } }
        )
        let sending = Task { try await transport.send(request) }
        let started = ContinuousClock.now
        while sent.current < 1 << 20 {
            try #require(ContinuousClock.now - started < .seconds(30), "the upload did not start")
            try await Task.sleep(for: .milliseconds(10))
        }
        let handle = try FileHandle(forUpdating: file)
        try change(handle)
        try handle.close()
        let changedAt = ContinuousClock.now
        let _: [String: String] = try await FaultServer.proxy()
            .invoke(.get, path: "slow-read-go", arguments: ["key": key])
        let outcome = await Result { try JSONDecoder().decode(Read.self, from: try await sending.value.body) }
        let afterChange = ContinuousClock.now - changedAt
        // What the server read, once it has read it (it waits half a second for any more bytes).
        var received = Read(received: -1, extra: -1)
        for _ in 0..<30 where received.received < 0 {
            try await Task.sleep(for: .milliseconds(100))
            received = try await FaultServer.proxy().invoke(.get, path: "slow-read-result", arguments: ["key": key])
        }
        return (outcome, file.path, received, afterChange)
    }

    @Test func aFileThatGrowsWhileItIsSentSendsNoMoreThanItsLength() async throws {
        let (outcome, path, received, _) = try await send { handle in
            handle.seekToEndOfFile()
            handle.write(Data(repeating: 0x62, count: 1 << 20))
        }
        let error = #expect(throws: (any Error).self) { try outcome.get() }
        #expect(error as? RequestError == .bodyFileChanged(path), "\(String(describing: error))")
        #expect(received.received == Self.size || received.received == -1, "the body as announced, or nothing")
        #expect(received.extra <= 0, "bytes past the Content-Length reached the server")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFileThatShrinksWhileItIsSentFailsAtOnce() async throws {
        let (outcome, path, _, afterChange) = try await send { handle in
            try handle.truncate(atOffset: 1 << 20)
        }
        let error = #expect(throws: (any Error).self) { try outcome.get() }
        #expect(error as? RequestError == .bodyFileChanged(path), "\(String(describing: error))")
        // The file is checked every second: the failure comes in about one, well before the
        // 30-second timeout.
        #expect(afterChange < .seconds(20), "it did not wait for its 30-second timeout")
    }
}

extension Result where Failure == any Error {
    /// Captures the outcome of an `async` throwing function.
    fileprivate init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
