import Foundation
import Kilo
import Testing

/// Uploads from a file interrupted while the body is being sent, by the caller or by the server:
/// each ends with its error, and the process goes on. (Linux's URLSession, given the file itself,
/// crashed within a few resets: `try!` on libcurl's error 43 in its file reader.)
@Suite(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
struct InterruptedFileUploadTests {
    /// How many uploads each test makes, one after another.
    private static let attempts = 15

    /// A `PUT` of `file` to `path` on the fault server, the transport under test, and the bytes
    /// of the body sent so far.
    private func upload(
        to path: String,
        from file: URL
    ) throws -> (any Transport, TransportRequest, sent: Protected<Int64>) {
        let baseURL = try #require(FaultServer.url)
        let sent = Protected<Int64>(0)
        let request = TransportRequest(
            method: .put,
            url: try #require(URL(string: path, relativeTo: baseURL)?.absoluteURL),
            headers: ["Content-Type": "application/octet-stream"],
            body: .file(file),
            timeoutInterval: 30,
            progress: ProgressObserver { progress in sent.withLock { $0 = progress.bytesSent } }
        )
        return (Servers.makeProxy(baseURL: baseURL).transport, request, sent)
    }

    /// Sends a 16 MiB `file` to a server that reads 3 MiB a second (about five seconds of body),
    /// and cancels it once some of the body has gone out and up to `delay` later.
    private func cancelWhileSending(_ file: URL, after delay: Duration) async throws -> URLError? {
        let (transport, request, sent) = try upload(to: "slow-read?key=\(FaultServer.makeKey("cancelled"))", from: file)
        let sending = Task { try await transport.send(request) }
        let started = ContinuousClock.now
        while sent.current == 0 {
            try #require(ContinuousClock.now - started < .seconds(30), "the upload did not start")
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: delay)
        sending.cancel()
        return await #expect(throws: URLError.self) { try await sending.value }
    }

    @Test func uploadsCancelledWhileTheirBodyIsSentEndCancelled() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data(repeating: 0x61, count: 16 << 20), named: "body.bin")
        for _ in 0..<Self.attempts {
            let error = try await cancelWhileSending(file, after: .milliseconds(Int.random(in: 0...400)))
            #expect(error?.code == .cancelled)
        }
    }

    /// Uploads of a file, whole, empty or cancelled, leave no descriptor open on it once they
    /// end (a session's task may outlive its request a little). Where `/proc/self/fd` lists the
    /// process's open files.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func uploadsLeaveNoDescriptorOpenOnTheirFile() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data(repeating: 0x61, count: 16 << 20), named: "body.bin")
        let empty = try directory.write(Data(), named: "empty.bin")
        for _ in 0..<3 {
            for body in [file, empty] {
                let (transport, request, _) = try upload(to: "echo?key=\(FaultServer.makeKey("whole"))", from: body)
                #expect(try await transport.send(request).body.count == (body == file ? 16 << 20 : 0))
            }
            let error = try await cancelWhileSending(file, after: .zero)
            #expect(error?.code == .cancelled)
        }
        let started = ContinuousClock.now
        var open = try descriptors(on: [file, empty])
        while open > 0, ContinuousClock.now - started < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
            open = try descriptors(on: [file, empty])
        }
        #expect(open == 0, "descriptors still open on the uploaded files")
    }

    /// How many of this process's open file descriptors refer to one of `files`.
    private func descriptors(on files: [URL]) throws -> Int {
        let paths = Set(files.map { $0.resolvingSymlinksInPath().path })
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return names.filter { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
            return target.map { paths.contains(URL(fileURLWithPath: $0).resolvingSymlinksInPath().path) } ?? false
        }.count
    }

    @Test func uploadsResetBeforeTheirBodyIsReadEndWithTheConnectionLost() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Data(repeating: 0x61, count: 16 << 20), named: "body.bin")
        for _ in 0..<Self.attempts {
            // Reset after the request's head, before any of its body is read.
            let path = "flaky-early?how=reset&failures=\(Self.attempts)&key=\(FaultServer.makeKey("reset"))"
            let (transport, request, _) = try upload(to: path, from: file)
            let error = await #expect(throws: URLError.self) { try await transport.send(request) }
            #expect(error?.code == .networkConnectionLost)
        }
    }
}
