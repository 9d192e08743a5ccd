import Foundation
import Kilo
import Testing

/// Bodies larger than memory should hold: streamed multipart uploads, progress, downloads to
/// file. Serialized, so that its own uploads do not overlap while one test counts temporary files.
@Suite(.serialized, .enabled(if: Servers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test.sh)"))
struct LargeBodyTests {
    /// More than ``WebServiceProxy/multipartMemoryLimit``, so the body is streamed from a file.
    static let largeSize = Int(WebServiceProxy.multipartMemoryLimit) + 1_500_001

    /// A proxy whose transport owns its session, so progress is reported as bytes move (under
    /// `KILO_ASYNC_HTTP_CLIENT`, the transport under test, which always reports it so).
    func progressProxy() throws -> WebServiceProxy {
        let baseURL = try #require(Servers.sample, "KILO_SAMPLE_URL is not set")
        #if KILO_ASYNC_HTTP_CLIENT
            let proxy = Servers.makeProxy(baseURL: baseURL)
        #else
            let proxy = WebServiceProxy(configuration: .ephemeral, baseURL: baseURL)
        #endif
        proxy.encoding = .multipartFormData
        return proxy
    }

    /// The names of Kilo's temporary upload files.
    func temporaryUploads() throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
                .filter { $0.hasPrefix("kilo-upload-") })
    }

    /// Checks that no temporary upload file made since `before` remains. Suites in other files
    /// may be uploading at the same time, so a new file must outlive their requests (30 s) to
    /// count as left behind.
    func expectNoTemporaryUploadsLeft(since before: Set<String>) async throws {
        var left = try temporaryUploads().subtracting(before)
        let deadline = ContinuousClock.now + .seconds(30)
        while !left.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            left = left.intersection(try temporaryUploads())
        }
        #expect(left.isEmpty, "temporary upload files left behind: \(left)")
    }

    @Test func aLargeFileArrivesByteExactAndItsTemporaryBodyIsRemoved() async throws {
        let directory = try TemporaryDirectory()
        let data = Fixtures.bytes(count: Self.largeSize, seed: 7)
        let file = try directory.write(data, named: "large.bin")
        let before = try temporaryUploads()
        let proxy = try progressProxy()
        let echo: MultipartEcho = try await proxy.invoke(
            .post, path: "echo/multipart", arguments: ["title": "big", "file": file])
        let uploaded = try #require(echo.files["file"]?.first)
        #expect(uploaded.size == data.count)
        #expect(uploaded.sha256 == SHA256.hexDigest(data))
        #expect(uploaded.filename == "large.bin")
        #expect(echo.form["title"] == ["big"])
        try await expectNoTemporaryUploadsLeft(since: before)
    }

    @Test func uploadProgressIsMonotonicAndReachesTheWholeBody() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Fixtures.bytes(count: Self.largeSize), named: "large.bin")
        let reports = Protected<[TransferProgress]>([])
        let proxy = try progressProxy()
        let _: MultipartEcho = try await proxy.invoke(
            .post,
            path: "echo/multipart",
            arguments: ["file": file],
            progress: ProgressHandler { progress in reports.withLock { $0.append(progress) } }
        )
        let all = reports.withLock { $0 }
        #expect(all.count > 3, "progress should be reported as the body streams, not only at the ends")
        for (earlier, later) in zip(all, all.dropFirst()) {
            #expect(later.bytesSent >= earlier.bytesSent)
            #expect(later.bytesReceived >= earlier.bytesReceived)
        }
        let last = try #require(all.last)
        #expect(last.fractionSent == 1)
        #expect(last.fractionReceived == 1)
        #expect(try #require(last.expectedBytesToSend) > Int64(Self.largeSize))
    }

    @Test func callbackProgressReachesTheWholeBodyWithAPlainSession() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Fixtures.bytes(count: 100_000), named: "small.bin")
        let reports = Protected<[TransferProgress]>([])
        let proxy = try Servers.sampleProxy()
        proxy.encoding = .multipartFormData
        let outcome: CallbackOutcome<MultipartEcho> = try await callback { handler in
            proxy.invoke(
                .post, path: "echo/multipart", arguments: ["file": file],
                progress: { progress in reports.withLock { $0.append(progress) } }, resultHandler: handler)
        }
        #expect(try outcome.get().files["file"]?.first?.size == 100_000)
        let last = try #require(reports.withLock { $0.last })
        #expect(last.fractionSent == 1)
        #expect(last.fractionReceived == 1)
    }

    /// Cancels while Kilo writes the temporary body, before the upload starts. (Cancelling a
    /// Linux URLSession upload from a file while its body is being sent can crash the process
    /// inside FoundationNetworking, a platform bug: see Docs/LargeBodies.md.)
    @Test func aCancelledUploadLeavesNoTemporaryFile() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(Fixtures.bytes(count: 48 * 1024 * 1024), named: "huge.bin")
        let before = try temporaryUploads()
        let proxy = try progressProxy()
        let task = Task {
            try await proxy.invoke(.post, path: "echo/multipart", arguments: ["file": file])
        }
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        try await expectNoTemporaryUploadsLeft(since: before)
    }

    // MARK: The temporary copy: private while it is sent, removed after

    /// The path and permission bits of this process's temporary copy whose body holds `marker`
    /// near its start, if there is one now.
    func temporaryCopy(marked marker: String) throws -> (url: URL, mode: Int?)? {
        let directory = FileManager.default.temporaryDirectory
        let prefix = "kilo-upload-\(ProcessInfo.processInfo.processIdentifier)-"
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix(prefix) {
            let url = directory.appendingPathComponent(name)
            // Another test's copy may go between the listing and the reading; it is not ours then.
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            defer { try? handle.close() }
            guard let head = try handle.read(upToCount: 4096), String(decoding: head, as: UTF8.self).contains(marker)
            else { continue }
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
            return (url, mode?.intValue)
        }
        return nil
    }

    /// Waits up to 10 seconds for the copy marked `marker` to appear.
    func waitForTemporaryCopy(marked marker: String) async throws -> (url: URL, mode: Int?) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let copy = try temporaryCopy(marked: marker) {
                return copy
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try #require(try temporaryCopy(marked: marker), "no temporary copy of the body appeared")
    }

    /// Multipart arguments with a large file, streamed from a copy whose first part is `marker`.
    func markedUpload(_ marker: String, in directory: TemporaryDirectory) throws -> [String: Any] {
        let file = try directory.write(Fixtures.bytes(count: Self.largeSize, seed: 3), named: "private.bin")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return ["a-marker": marker, "file": file]
    }

    /// The fault server holds the request for a second after reading its body (then redirects to
    /// `/ok`): meanwhile Kilo's copy of the body is readable by its owner only, as the file it
    /// copies is; once the request is done, it is gone.
    @Test(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
    func theTemporaryCopyIsPrivateWhileItIsSentAndRemovedAfterSuccess() async throws {
        let directory = try TemporaryDirectory()
        let marker = UUID().uuidString
        let arguments = try markedUpload(marker, in: directory)
        let proxy = try FaultServer.proxy()
        proxy.encoding = .multipartFormData
        let upload = Task { () -> FaultServer.OK in
            try await proxy.invoke(.post, path: "redirect-to?delay=1&url=/ok", arguments: arguments)
        }
        let copy = try await waitForTemporaryCopy(marked: marker)
        #expect(copy.mode == 0o600)
        #expect(try await upload.value.ok)
        #expect(!FileManager.default.fileExists(atPath: copy.url.path))
    }

    /// A failure status after the body was read leaves no copy behind.
    @Test(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
    func theTemporaryCopyIsRemovedAfterAFailure() async throws {
        let directory = try TemporaryDirectory()
        let marker = UUID().uuidString
        let key = FaultServer.makeKey("copy-failure")
        let arguments = try markedUpload(marker, in: directory)
        let proxy = try FaultServer.proxy()
        proxy.encoding = .multipartFormData
        let error = await #expect(throws: WebServiceError.self) {
            try await proxy.invoke(.post, path: "flaky?key=\(key)&failures=5", arguments: arguments)
        }
        #expect(error?.statusCode == 503)
        #expect(try await FaultServer.count(key) == 1)
        #expect(try temporaryCopy(marked: marker) == nil)
    }

    /// Cancelled while the server holds a request whose body it has read, the upload leaves no
    /// copy behind. (Cancelled only once the body is all sent: see the platform bug in
    /// Docs/LargeBodies.md.)
    @Test(.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"))
    func theTemporaryCopyIsRemovedAfterCancellation() async throws {
        let directory = try TemporaryDirectory()
        let marker = UUID().uuidString
        let key = FaultServer.makeKey("copy-cancel")
        let arguments = try markedUpload(marker, in: directory)
        let proxy = try FaultServer.proxy()
        proxy.encoding = .multipartFormData
        let upload = Task { try await proxy.invoke(.post, path: "hang?key=\(key)", arguments: arguments) }
        let copy = try await waitForTemporaryCopy(marked: marker)
        #expect(copy.mode == 0o600)
        try await FaultServer.waitForCount(1, key: key)
        upload.cancel()
        let error = await #expect(throws: URLError.self) { try await upload.value }
        #expect(error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: copy.url.path))
    }

    @Test(arguments: [0, 1, 5_000_003])
    func aDownloadToFileIsByteExact(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("download.bin")
        let reports = Protected<[TransferProgress]>([])
        let proxy = try progressProxy()
        let headers = try await proxy.download(
            path: "bytes",
            arguments: ["n": size],
            to: destination,
            progress: ProgressHandler { progress in reports.withLock { $0.append(progress) } }
        )
        let data = try Data(contentsOf: destination)
        #expect(data.count == size)
        #expect(data == Data((0..<size).map { UInt8($0 % 251) }))
        #expect(headers["content-type"] == "application/octet-stream")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["download.bin"])
        let received = reports.withLock { $0.map(\.bytesReceived) }
        #expect(received == received.sorted())
        #expect(reports.withLock { $0.last?.fractionReceived } == 1)
    }

    /// The temporary file beside a destination whose name is as long as the file system allows
    /// gets a shortened name, on either kind of session.
    @Test func aDownloadToADestinationWithTheLongestNameSucceeds() async throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "é", count: 100) + String(repeating: "a", count: 51) + ".bin"
        let destination = directory.url.appendingPathComponent(name)
        for proxy in [try Servers.sampleProxy(), try progressProxy()] {
            try await proxy.download(path: "bytes", arguments: ["n": 1000], to: destination)
            #expect(try Data(contentsOf: destination) == Data((0..<1000).map { UInt8($0 % 251) }))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [name])
        }
    }

    @Test func aCallbackDownloadReplacesAnExistingFile() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("old".utf8), named: "download.bin")
        let proxy = try Servers.sampleProxy()
        let outcome: CallbackOutcome<HTTPHeaders> = try await callback { handler in
            proxy.download(path: "bytes", arguments: ["n": 1000], to: destination, resultHandler: handler)
        }
        _ = try outcome.get()
        #expect(try Data(contentsOf: destination) == Data((0..<1000).map { UInt8($0 % 251) }))
    }

    @Test func aFailedDownloadLeavesTheDestinationAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("keep me".utf8), named: "download.bin")
        let proxy = try progressProxy()
        let error = await #expect(throws: WebServiceError.self) {
            try await proxy.download(path: "error", to: destination)
        }
        #expect(error?.statusCode == 500)
        #expect(error?.localizedDescription == "This is an error message.")
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["download.bin"])
    }
}
