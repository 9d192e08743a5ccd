import Foundation
import Kilo
import Testing

/// A file body that grows or shrinks while it is sent: the server never receives more bytes than
/// the `Content-Length` the request announced (appended bytes were read as a second request, a
/// way to smuggle one through the transport), and the caller learns that the file changed.
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct ChangingFileBodyTests {
    /// Whether the transport under test is `URLSession` on Linux.
    #if !KILO_ASYNC_HTTP_CLIENT && canImport(FoundationNetworking)
        private static let isLinuxURLSession = true
    #else
        private static let isLinuxURLSession = false
    #endif

    private struct Read: Decodable {
        var received: Int
        var extra: Int
    }

    /// Sends 8 MiB from a file to a server that reads it at about 3 MiB a second, and changes
    /// the file's size once the transport has sent its first MiB (not after a fixed time: on a
    /// busy machine the upload may not have begun, and the transport would read the new size).
    private func send(changing change: @escaping @Sendable (FileHandle) throws -> Void) async throws
        -> (Result<Read, any Error>, path: String, received: Read, afterChange: Duration)
    {
        let key = FaultServer.makeKey("changing-file")
        let directory = try TemporaryDirectory()
        let size = 8 << 20
        let file = try directory.write(Data(repeating: 0x61, count: size), named: "body.bin")
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
        #expect(received.received == 8 << 20 || received.received == -1, "the body as announced, or nothing")
        #if KILO_ASYNC_HTTP_CLIENT || !canImport(FoundationNetworking)
            #expect(received.extra <= 0, "bytes past the Content-Length reached the server")
        #else
            // Linux's URLSession reads a file body to its end, whatever length it announced, and
            // libcurl sends what it reads: Kilo stops the transfer as soon as the session reports
            // more bytes sent than announced, but some may be on the wire by then.
            withKnownIssue("URLSession on Linux sends a growing file past its Content-Length", isIntermittent: true) {
                #expect(received.extra <= 0, "bytes past the Content-Length reached the server")
            }
        #endif
    }

    /// Not over Linux's `URLSession`, where the session itself can crash the process reading a
    /// file that shrinks under it (`_BodyFileSource.readNextChunk` → `_EasyHandle._PauseState`,
    /// `try!` on libcurl's error 43; seen once in five clean-clone CI runs; Docs/Linux.md).
    @Test(.timeLimit(.minutes(1)), .disabled(if: Self.isLinuxURLSession, "Linux's URLSession can crash on it"))
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
