import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking

/// On Linux a session of the transport's own writes a download to its file as the bytes arrive,
/// and a download that fails leaves no file behind: a download task's own temporary file would
/// stay in the temporary directory. Against the fault server on 127.0.0.1.
@Suite(
    .needs(.fault),
    .timeLimit(.minutes(1))
)
struct URLSessionTransportDownloadTests {
    private static let transport = URLSessionTransport(configuration: .ephemeral)
    private let baseURL: URL
    private let directory: URL

    /// A request for the fault server's `path`.
    private func download(_ path: String, progress: ProgressObserver? = nil) throws -> TransportRequest {
        TransportRequest(method: .get, url: try #require(URL(string: path, relativeTo: baseURL)), progress: progress)
    }

    /// Where a download goes: `body.part` in the test's directory.
    private var file: URL { directory.appendingPathComponent("body.part") }

    /// Reading a response into ``file``.
    private var toFile: ResponseConsumption { .file(file) }

    init() throws {
        baseURL = try LoopbackServer.fault.baseURL()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The bytes in the download's directory: the body is written beside its file as it arrives,
    /// and renamed over the file once it has all arrived.
    private func bytesWritten() -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    @Test func theBodyIsWrittenAsItArrivesAndACancelledDownloadLeavesNoFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let directory = directory
        let sizeAtOneMiB = Locked<Int64?>(nil)
        let running = Locked<Task<TransportResponse, any Error>?>(nil)
        // Cancels from the first report of 1 MiB. The server sends 2 MiB of a longer body and
        // then waits, so the download cannot finish before the cancellation, however late the
        // report comes on a busy machine.
        let progress = ProgressObserver { progress in
            guard progress.bytesReceived >= 1 << 20, sizeAtOneMiB.withLock({ $0 }) == nil else { return }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let size = names.reduce(Int64(0)) { total, name in
                let path = directory.appendingPathComponent(name).path
                return total + (((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0)
            }
            sizeAtOneMiB.withLock { $0 = size }
            running.withLock { $0 }?.cancel()
        }
        let request = try download("stall?kb=2048", progress: progress)
        let transport = Self.transport
        let task = Task { try await transport.send(request, consuming: toFile) }
        running.withLock { $0 = task }
        if sizeAtOneMiB.withLock({ $0 }) != nil {
            task.cancel()  // the report came before the task was stored
        }
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect((sizeAtOneMiB.withLock { $0 } ?? 0) >= 1 << 20, "the bytes went somewhere else first")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// The response to an upload from a file (a download whose request has a streamed multipart
    /// body) goes to its file as it arrives, as a download's does, without a progress observer
    /// too: the server sends 1 MiB of the body and then waits, and the file holds that MiB while
    /// the transfer is still running. Gathered in memory, the body would never reach the file.
    @Test func anUploadsResponseGoesToItsFileAsItArrives() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let upload = directory.appendingPathComponent("upload.bin")
        try Data(count: 1000).write(to: upload)
        var request = try download("stall?kb=1024")
        request.method = .post
        request.body = .file(upload)
        let transport = Self.transport
        let task = Task { try await transport.send(request, consuming: toFile) }
        var size: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(40)  // only a failing test waits this long
        while size < (1 << 20) + 1000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            size = bytesWritten()  // the upload's 1000 bytes, and the body so far
        }
        task.cancel()
        #expect(size == (1 << 20) + 1000, "the body did not reach its file as it arrived")
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// Neither the file nor a download task's own temporary file stays: the partial body, a mark
    /// of this test's, is found nowhere in the temporary directory.
    @Test func aDownloadCutShortLeavesNoFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let mark = "kilo-partial-body-\(UUID().uuidString)"
        let request = try download("drop?mark=\(mark)")
        await #expect(throws: URLError.self) { try await Self.transport.send(request, consuming: toFile) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let temporary = FileManager.default.temporaryDirectory
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { name in
            let url = temporary.appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
            return size == mark.utf8.count && (try? String(contentsOf: url, encoding: .utf8)) == mark
        }
        #expect(leftovers.isEmpty, "the partial body stayed in \(leftovers)")
    }

    /// An empty body (no chunk ever comes) still replaces the file, as a download task does.
    @Test func anEmptyBodyLeavesAnEmptyFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        var request = try download("echo")
        request.method = .post
        try Data("stale contents".utf8).write(to: file)
        let response = try await Self.transport.send(request, consuming: toFile)
        #expect(response.statusCode == 200)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        #expect(size?.intValue == 0)
    }

    /// A gzip body's `Content-Length` counts the compressed bytes, and the session hands over
    /// the decompressed ones: progress does not take the first for the size of the second. Before
    /// the fix, a 6.7 MB body sent as 145 kB was reported whole (a fraction of 1) from its first
    /// chunk; now its size is unknown until the last report, which has every byte.
    @Test(arguments: [true, false])
    func aCompressedBodysProgressDoesNotReachTheEndEarly(toFile: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let reports = Locked<[TransferProgress]>([])
        let progress = ProgressObserver { progress in reports.withLock { $0.append(progress) } }
        let request = try download("gzip-records?n=50000", progress: progress)
        let response = try await Self.transport.send(request, consuming: toFile ? self.toFile : .memory())
        let size = try toFile ? Data(contentsOf: file).count : response.body.count
        #expect(size > 5_000_000)
        let all = reports.withLock { $0 }
        #expect(all.count > 2, "the body came in too few chunks to tell")
        let early = all.dropLast().filter { report in
            report.expectedBytesToReceive.map { report.bytesReceived >= $0 } ?? false
        }
        #expect(early.count == 0, "\(early.count) of \(all.count) reports had every expected byte before the end")
        #expect(all.last?.bytesReceived == Int64(size))
        #expect(all.last?.fractionReceived == 1)
    }

    @Test func aWholeDownloadIsInItsFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let request = try download("huge?mb=3")
        let response = try await Self.transport.send(request, consuming: toFile)
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        #expect(size?.int64Value == 3 << 20)
    }
}
#endif
