import Foundation
import Kilo
import Testing

@Suite struct WebServiceProxyDownloadsTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func aDownloadWritesTheBodyToTheDestinationAndReturnsTheHeaders() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let transport = FakeTransport(statusCode: 200, data: Data([1, 2, 3]), headers: ["Content-Type": "image/png"])
        let destination = directory.appendingPathComponent("logo.png")
        let headers = try await makeProxy(transport).download(path: "logo", arguments: ["size": 2], to: destination)
        #expect(headers["content-type"] == "image/png")
        #expect(try Data(contentsOf: destination) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["logo.png"])
        #expect(await transport.requests.first?.url.query == "size=2")
    }

    @Test func aFailedDownloadKeepsTheOldFileAndReportsTheErrorBody() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let destination = directory.appendingPathComponent("report.csv")
        try Data("old".utf8).write(to: destination)
        let transport = FakeTransport(statusCode: 404, body: "no such report")
        let error = await #expect(throws: WebServiceError.self) {
            try await makeProxy(transport).download(path: "report", to: destination)
        }
        #expect(error?.statusCode == 404)
        #expect(error?.localizedDescription == "no such report")
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.csv"])
    }

    /// A destination that can never be written fails at once, and nothing is sent, in both
    /// APIs: before the fix the request went out (a `POST` did its work), the whole body came
    /// back, and only then did writing it fail, with an error naming a temporary file (and, for
    /// an error status, hiding it).
    @Test(arguments: ["missing directory", "a directory", "not a file URL"])
    func aDestinationThatCannotBeWrittenFailsBeforeAnythingIsSent(kind: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let destination: URL
        switch kind {
        case "missing directory":
            destination = directory.appendingPathComponent("missing/report.csv")
        case "a directory":
            destination = directory.appendingPathComponent("folder")
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        default:
            destination = try #require(URL(string: "https://example.com/report.csv"))
        }
        let transport = FakeTransport(statusCode: 200, body: "a report")
        let proxy = makeProxy(transport)
        let thrown = await #expect(throws: (any Error).self) {
            try await proxy.download(.post, path: "report", to: destination)
        }
        var task: RequestTask?
        let delivered: Result<HTTPHeaders, any Error> = await result { handler in
            task = proxy.download(.post, path: "report", to: destination, resultHandler: handler)
            return task
        }
        #expect(task == nil)
        var deliveredError: (any Error)?
        if case .failure(let error) = delivered {
            deliveredError = error
        }
        for error in [thrown, deliveredError] {
            switch kind {
            case "missing directory":
                #expect((error as? CocoaError)?.code == .fileNoSuchFile)
                #expect((error as? CocoaError)?.filePath == destination.deletingLastPathComponent().path)
            case "a directory":
                #expect((error as? POSIXError)?.code == .EISDIR)
            default:
                #expect((error as? CocoaError)?.code == .fileWriteUnsupportedScheme)
            }
        }
        #expect(await transport.requests.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left == (kind == "a directory" ? ["folder"] : []))
    }

    /// A destination whose name is as long as the file system allows (255 bytes, some of them
    /// in two-byte characters) still gets a temporary file beside it, under a shortened name.
    @Test func aDownloadToADestinationWithTheLongestNameSucceeds() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let name = String(repeating: "é", count: 100) + String(repeating: "a", count: 51) + ".bin"
        #expect(name.utf8.count == 255)
        let destination = directory.appendingPathComponent(name)
        try await makeProxy(FakeTransport(statusCode: 200, body: "long")).download(path: "file", to: destination)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "long")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])
    }

    @Test func aCallbackDownloadDeliversTheHeadersOnTheCallbackQueue() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let queue = DispatchQueue(label: "kilo.tests.downloads")
        let proxy = makeProxy(FakeTransport(statusCode: 200, body: "hello"), queue: queue)
        let destination = directory.appendingPathComponent("hello.txt")
        let delivered: Result<HTTPHeaders, any Error> = await result { handler in
            proxy.download(path: "hello", to: destination) { result in
                dispatchPrecondition(condition: .onQueue(queue))
                handler(result)
            }
        }
        #expect(try delivered.get()["content-type"] == "text/plain; charset=utf-8")
        #expect(try String(contentsOf: destination, encoding: .utf8) == "hello")
    }

    /// A cancel that comes after the body replaced the destination cannot put the old file back:
    /// the handler hears of the download, not of a cancellation.
    @Test func aCallbackDownloadCancelledAfterItReplacedTheFileReportsSuccess() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
        let queue = DispatchQueue(label: "kilo.tests.downloads.late-cancel")
        let proxy = makeProxy(FakeTransport(statusCode: 200, body: "new"), queue: queue)
        let destination = directory.appendingPathComponent("file.txt")
        try Data("old".utf8).write(to: destination)
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }  // holds the handler back until the file is replaced
        let delivered: Result<HTTPHeaders, any Error> = await result { handler in
            let task = proxy.download(path: "file", to: destination, resultHandler: handler)
            DispatchQueue.global().async {
                while (try? String(contentsOf: destination, encoding: .utf8)) != "new" {
                    usleep(1_000)
                }
                task?.cancel()
                release.signal()
            }
            return task
        }
        #expect(throws: Never.self) { try delivered.get() }
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
    }
}

@Suite struct WebServiceProxyProgressAndTimeoutTests {
    @Test func progressEndsWithEveryByteSentAndReceived() async throws {
        let transport = FakeTransport(statusCode: 200, body: "[1,2,3]")
        let reports = Reports()
        let numbers: [Int] = try await makeProxy(transport).invoke(
            .post,
            path: "n",
            arguments: ["a": "bc"],
            progress: ProgressHandler { reports.append($0) }
        )
        #expect(numbers == [1, 2, 3])
        let last = try #require(reports.all.last)
        #expect(last.bytesSent == 4)
        #expect(last.bytesReceived == 7)
        #expect(last.fractionSent == 1)
        #expect(last.fractionReceived == 1)
    }

    @Test func withTimeoutMakesAProxyWithItsOwnTimeoutAndTheSameSettings() async throws {
        let transport = FakeTransport(statusCode: 204, data: Data())
        let proxy = makeProxy(transport)
        proxy.headers = ["X-Token": "abc"]
        proxy.timeoutInterval = 30
        let quick = proxy.withTimeout(2)
        try await quick.invoke(.get, path: "quick")
        try await proxy.invoke(.get, path: "slow")
        let requests = await transport.requests
        #expect(requests.map(\.timeoutInterval) == [2, 30])
        #expect(requests.map { $0.headers["X-Token"] } == ["abc", "abc"])
        #expect(quick.baseURL == proxy.baseURL)
    }
}

/// Collects progress reports from any thread.
final class Reports: @unchecked Sendable {
    // `@unchecked Sendable`: `reports` is only read and written under `lock`.
    private let lock = NSLock()
    private var reports: [TransferProgress] = []

    func append(_ progress: TransferProgress) {
        lock.withLock { reports.append(progress) }
    }

    var all: [TransferProgress] {
        lock.withLock { reports }
    }
}
