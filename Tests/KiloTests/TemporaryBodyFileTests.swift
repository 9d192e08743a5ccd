import Foundation
import Kilo
import Testing

/// Kilo's temporary copies of streamed multipart bodies: private, and removed on every outcome.
///
/// These tests use the `package` API of ``TemporaryBodyFile`` for what the public API cannot
/// reach (a directory of their own, a clock), and the public API with a ``FakeTransport`` for the
/// rest.
@Suite struct TemporaryBodyFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: Writing

    @Test func theFileIsReadableByItsOwnerOnlyFromItsCreation() throws {
        var modes: [Int?] = []
        let file = try TemporaryBodyFile.write(in: directory.url) { output in
            modes.append(try permissions(of: directory.url.appendingPathComponent(directory.names()[0])))
            try output(Data("a".utf8))
            try output(Data("b".utf8))
        }
        #expect(modes == [0o600])
        #expect(try permissions(of: file) == 0o600)
        #expect(try Data(contentsOf: file) == Data("ab".utf8))
    }

    @Test func theFileIsNamedWithTheProcessIDAndAUUID() throws {
        let file = try TemporaryBodyFile.write(in: directory.url) { try $0(Data("x".utf8)) }
        let name = file.lastPathComponent
        let prefix = "kilo-upload-\(ProcessInfo.processInfo.processIdentifier)-"
        #expect(name.hasPrefix(prefix))
        #expect(name.hasSuffix(".multipart"))
        #expect(UUID(uuidString: String(name.dropFirst(prefix.count).dropLast(".multipart".count))) != nil)
        #expect(file.deletingLastPathComponent().standardizedFileURL == directory.url.standardizedFileURL)
    }

    @Test func aFailureWhileWritingRemovesTheFile() throws {
        struct Failure: Error, Equatable {}
        var existed = false
        #expect(throws: Failure()) {
            try TemporaryBodyFile.write(in: directory.url) { output in
                try output(Data("half".utf8))
                existed = try directory.names().count == 1
                throw Failure()
            }
        }
        #expect(existed)
        #expect(try directory.names().isEmpty)
    }

    /// Writing stops at the chunk where `shouldContinue` first says no (a cancelled upload): the
    /// rest of a large file is not read, and the half-written body is removed.
    @Test func cancellationStopsTheWritingAndRemovesTheFile() throws {
        let sources = try TemporaryDirectory()
        let big = try sources.write(Data(count: 4 * 1024 * 1024), named: "big.bin")
        let encoder = MultipartEncoder(boundary: "B")
        var asked = 0
        #expect(throws: CancellationError.self) {
            try TemporaryBodyFile.write(
                in: directory.url,
                while: {
                    asked += 1
                    return asked < 3
                },
                { try encoder.write(["big": .file(big)], to: $0) }
            )
        }
        #expect(asked == 3)
        #expect(try directory.names().isEmpty)
    }

    /// The encoder fails after it has written part of the body: a file argument that cannot be
    /// read, found only when its turn comes.
    @Test func anEncoderErrorMidBodyRemovesTheFile() throws {
        let sources = try TemporaryDirectory()
        let first = try sources.write(Data(count: 300 * 1024), named: "first.bin")
        let encoder = MultipartEncoder(boundary: "B")
        var written = 0
        let error = #expect(throws: ArgumentEncodingError.self) {
            try TemporaryBodyFile.write(in: directory.url) { output in
                try encoder.write(["a": .file(first), "b": .file(sources.url)]) { chunk in
                    written += chunk.count
                    try output(chunk)
                }
            }
        }
        #expect(error?.isUnreadableFile == true)
        #expect(written > 300 * 1024)
        #expect(try directory.names().isEmpty)
    }

    @Test func aDirectoryThatCannotHoldTheFileThrowsTheReason() throws {
        let missing = directory.url.appendingPathComponent("missing", isDirectory: true)
        let error = #expect(throws: POSIXError.self) {
            try TemporaryBodyFile.write(in: missing) { try $0(Data("x".utf8)) }
        }
        #expect(error?.code == .ENOENT)
    }

    // MARK: Through the proxy

    /// A body above ``WebServiceProxy/multipartMemoryLimit`` and the file it is streamed from.
    static func largeUpload() throws -> (TemporaryDirectory, [String: Any]) {
        let sources = try TemporaryDirectory()
        let file = try sources.write(Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1), named: "large.bin")
        return (sources, ["title": "big", "file": file])
    }

    /// A transport that notes the file it was asked to send and its permissions at that moment,
    /// then answers as `respond` says. (``FakeTransport`` reads a file body into memory first.)
    actor FileTransport: Transport {
        private(set) var file: URL?
        private(set) var mode: Int?
        private let respond: @Sendable () async throws -> TransportResponse

        init(_ respond: @escaping @Sendable () async throws -> TransportResponse) {
            self.respond = respond
        }

        func stream(_ request: TransportRequest) async throws -> StreamedResponse {
            if case .file(let url) = request.body {
                file = url
                mode = try permissions(of: url)
            }
            return StreamedResponse(try await respond())
        }
    }

    @Test func aStreamedBodyIsPrivateWhileItIsSentAndRemovedAfterSuccess() async throws {
        let (sources, arguments) = try Self.largeUpload()
        let sent = FileTransport { TransportResponse(statusCode: 204, headers: [:], body: Data()) }
        let proxy = makeProxy(sent)
        proxy.encoding = .multipartFormData
        try await proxy.invoke(.post, path: "upload", arguments: arguments)
        let file = try #require(await sent.file)
        #expect(await sent.mode == 0o600)
        #expect(file.lastPathComponent.hasPrefix("kilo-upload-\(ProcessInfo.processInfo.processIdentifier)-"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        withExtendedLifetime(sources) {}
    }

    @Test func aStreamedBodyIsRemovedAfterAFailure() async throws {
        let (sources, arguments) = try Self.largeUpload()
        let sent = FileTransport { throw URLError(.networkConnectionLost) }
        let proxy = makeProxy(sent)
        proxy.encoding = .multipartFormData
        await #expect(throws: URLError(.networkConnectionLost)) {
            try await proxy.invoke(.post, path: "upload", arguments: arguments)
        }
        let outcome = await result { proxy.invoke(.post, path: "upload", arguments: arguments, resultHandler: $0) }
        #expect(throws: URLError(.networkConnectionLost)) { try outcome.get() }
        let file = try #require(await sent.file)
        #expect(await sent.mode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        withExtendedLifetime(sources) {}
    }

    @Test func aStreamedBodyIsRemovedAfterCancellationDuringTheRequest() async throws {
        let (sources, arguments) = try Self.largeUpload()
        let sent = FileTransport {
            try await Task.sleep(for: .seconds(60))
            return TransportResponse(statusCode: 204, headers: [:], body: Data())
        }
        let proxy = makeProxy(sent)
        proxy.encoding = .multipartFormData
        let upload = Task { try await proxy.invoke(.post, path: "upload", arguments: arguments) }
        let deadline = Date(timeIntervalSinceNow: 60)  // only a failing test waits this long
        while await sent.file == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let file = try #require(await sent.file)
        #expect(FileManager.default.fileExists(atPath: file.path))
        upload.cancel()
        await #expect(throws: URLError(.cancelled)) { try await upload.value }
        #expect(!FileManager.default.fileExists(atPath: file.path))
        withExtendedLifetime(sources) {}
    }

    #if os(Linux)
        /// `/proc/self/mem` passes every check made before the request (a regular, readable file)
        /// but fails with EIO when read: the body's writing fails halfway, after the large file.
        @Test func anUnreadableFileFoundWhileWritingFailsTheUploadAndLeavesNoCopy() async throws {
            let (sources, arguments) = try Self.largeUpload()
            let marker = UUID().uuidString
            let proxy = makeProxy(FakeTransport())
            proxy.encoding = .multipartFormData
            var marked = arguments
            marked["a-marker"] = marker  // the first part
            marked["z"] = URL(fileURLWithPath: "/proc/self/mem")  // the last
            let error = await #expect(throws: ArgumentEncodingError.self) {
                try await proxy.invoke(.post, path: "upload", arguments: marked)
            }
            #expect(error?.isUnreadableFile == true)
            #expect(try Self.copiesOfThisProcess(marked: marker).isEmpty)
            // The checks made before the request pass: the error came from reading, mid-body.
            #expect(throws: Never.self) {
                try MultipartEncoder().validate(["z": .file(URL(fileURLWithPath: "/proc/self/mem"))])
            }
            withExtendedLifetime(sources) {}
        }
    #endif

    /// This process's copies in the system's temporary directory whose body holds `marker`
    /// near its start. (Other tests upload at the same time.)
    static func copiesOfThisProcess(marked marker: String) throws -> [URL] {
        let directory = FileManager.default.temporaryDirectory
        let prefix = "kilo-upload-\(ProcessInfo.processInfo.processIdentifier)-"
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) }
            .map { directory.appendingPathComponent($0) }
            .filter { url in
                // Another test's copy may go between the listing and the reading; it is not ours then.
                guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
                defer { try? handle.close() }
                let head = try handle.read(upToCount: 4096) ?? Data()
                return String(decoding: head, as: UTF8.self).contains(marker)
            }
    }

    // MARK: Stale copies

    /// The ID of a process that has exited.
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    static func copyName(processID: Int32) -> String {
        "kilo-upload-\(processID)-\(UUID().uuidString).multipart"
    }

    @Test func staleCopiesOfDeadProcessesAreRemovedAndNothingElse() throws {
        let dead = try Self.deadProcessID()
        let live = ProcessInfo.processInfo.processIdentifier
        let stale = try directory.write(Data("s".utf8), named: Self.copyName(processID: dead))
        try directory.write(Data("l".utf8), named: Self.copyName(processID: live))
        try directory.write(Data("o".utf8), named: "kilo-upload-\(UUID().uuidString).multipart")  // no process ID
        try directory.write(Data("u".utf8), named: "kilo-upload-\(dead)-not-a-uuid.multipart")
        try directory.write(Data("p".utf8), named: "kilo-upload-+\(dead)-\(UUID().uuidString).multipart")
        try directory.write(Data("e".utf8), named: "other-\(dead)-\(UUID().uuidString).multipart")
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent(Self.copyName(processID: dead)),
            withIntermediateDirectories: false
        )
        let target = try directory.write(Data("t".utf8), named: "target")
        try FileManager.default.createSymbolicLink(
            at: directory.url.appendingPathComponent(Self.copyName(processID: dead)),
            withDestinationURL: target
        )
        let all = try directory.names()

        // Young: nothing is removed.
        TemporaryBodyFile.removeStaleCopies(in: directory.url)
        #expect(try directory.names() == all)

        // A day and a minute later: only the dead process's regular file.
        TemporaryBodyFile.removeStaleCopies(in: directory.url, now: Date(timeIntervalSinceNow: 86_460))
        #expect(try directory.names() == all.filter { $0 != stale.lastPathComponent })
        #expect(try Data(contentsOf: target) == Data("t".utf8))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root, to give a file to another user"))
    func anotherUsersStaleCopyIsKept() throws {
        let copy = try directory.write(Data("n".utf8), named: Self.copyName(processID: try Self.deadProcessID()))
        try FileManager.default.setAttributes([.ownerAccountID: 65_534], ofItemAtPath: copy.path)
        TemporaryBodyFile.removeStaleCopies(in: directory.url, now: Date(timeIntervalSinceNow: 86_460))
        #expect(FileManager.default.fileExists(atPath: copy.path))
    }

    /// A streamed upload, the first of the process or the first for an hour, removes the stale
    /// copies in the system's temporary directory.
    @Test func aStreamedUploadRemovesStaleCopies() async throws {
        let temporary = FileManager.default.temporaryDirectory
        let stale = temporary.appendingPathComponent(Self.copyName(processID: try Self.deadProcessID()))
        try Data("stale".utf8).write(to: stale)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)],
            ofItemAtPath: stale.path
        )
        defer { try? FileManager.default.removeItem(at: stale) }  // if the test fails
        let (sources, arguments) = try Self.largeUpload()
        let proxy = makeProxy(FakeTransport(statusCode: 204, data: Data()))
        proxy.encoding = .multipartFormData
        TemporaryBodyFile.forgetLastSweep()
        try await proxy.invoke(.post, path: "upload", arguments: arguments)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        withExtendedLifetime(sources) {}
    }
}
