import AsyncHTTPClient
import Foundation
import Kilo
import KiloAsyncHTTPClient
import Testing

/// What the servers receive and what comes back through the transport: bodies from memory and
/// from files, downloads to file, headers, redirects and progress.
@Suite(
    .serialized,
    .enabled(if: LiveServers.fault != nil, "needs KILO_FAULT_URL (run Scripts/test-transports.sh)"),
    .enabled(if: LiveServers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test-transports.sh)"),
    .enabled(if: LiveServers.sample != nil, "needs KILO_SAMPLE_URL (run Scripts/test-transports.sh)"),
    .timeLimit(.minutes(2))
)
struct AsyncHTTPClientTransportTests {
    private let transport = LiveServers.transport

    /// httpbin's echo of a request.
    private struct Echo: Decodable {
        var method: String
        var headers: [String: String]
        var data: String
        var url: String

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    private func echo(_ response: TransportResponse) throws -> Echo {
        #expect(response.statusCode == 200)
        return try JSONDecoder().decode(Echo.self, from: response.body)
    }

    // MARK: Requests

    @Test(arguments: [HTTPMethod.get, .post, .put, .patch, .delete])
    func methodURLAndHeadersArrive(method: HTTPMethod) async throws {
        let url = try LiveServers.url(LiveServers.httpbin, "anything/a%20b?q=1&q=2")
        let response = try await transport.send(
            TransportRequest(method: method, url: url, headers: ["X-Kilo-Token": "s3cr3t", "X-Kilo-Text": "a, b"])
        )
        let echo = try echo(response)
        #expect(echo.method == method.rawValue)
        #expect(echo.url.hasSuffix("/anything/a%20b?q=1&q=2"))
        #expect(echo.header("X-Kilo-Token") == "s3cr3t")
        #expect(echo.header("X-Kilo-Text") == "a, b")
    }

    @Test func aDataBodyArrivesWithItsLengthAndOctetStreamByDefault() async throws {
        let data = fixtureBytes(count: 100_000)
        let response = try await transport.send(
            TransportRequest(method: .post, url: try LiveServers.url(LiveServers.fault, "echo"), body: .data(data))
        )
        #expect(response.body == data)
        let echoed = try echo(
            try await transport.send(
                TransportRequest(
                    method: .put,
                    url: try LiveServers.url(LiveServers.httpbin, "anything"),
                    body: .data(Data("hello".utf8))
                )
            )
        )
        #expect(echoed.data == "hello")
        #expect(echoed.header("Content-Type") == "application/octet-stream")
        #expect(echoed.header("Content-Length") == "5")
        #expect(echoed.header("Transfer-Encoding") == nil)
    }

    /// A file body given through a symbolic link is the file it names, with that file's length.
    @Test func aFileBodyThroughASymbolicLinkArrivesByteExact() async throws {
        let directory = try TemporaryDirectory()
        let data = fixtureBytes(count: 100_003, seed: 4)
        let file = try directory.write(data, named: "upload.bin")
        let link = directory.url.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let response = try await transport.send(
            TransportRequest(method: .post, url: try LiveServers.url(LiveServers.fault, "echo"), body: .file(link))
        )
        #expect(response.statusCode == 200)
        #expect(response.body == data)
    }

    /// A directory, a device that never ends and a named pipe cannot be sent: each fails at once
    /// with `fileDoesNotExist`, as over `URLSessionTransport`, and nothing is sent.
    @Test func aFileBodyThatIsNotARegularFileFailsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let pipe = directory.url.appendingPathComponent("body.fifo")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        for file in [directory.url, URL(fileURLWithPath: "/dev/zero"), pipe] {
            let error = await #expect(throws: URLError.self) {
                try await transport.send(
                    TransportRequest(
                        method: .post,
                        url: try LiveServers.url(LiveServers.httpbin, "anything"),
                        body: .file(file),
                        timeoutInterval: 10
                    )
                )
            }
            #expect(error?.code == .fileDoesNotExist, "\(file.path)")
        }
    }

    @Test(arguments: [0, 1, 5_000_003])
    func aFileBodyIsStreamedByteExactWithContentLength(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let data = fixtureBytes(count: size, seed: 3)
        let file = try directory.write(data, named: "upload.bin")
        let response = try await transport.send(
            TransportRequest(
                method: .post,
                url: try LiveServers.url(LiveServers.fault, "echo"),
                headers: ["Content-Type": "application/x-kilo"],
                body: .file(file)
            )
        )
        #expect(response.statusCode == 200)
        #expect(response.body == data)
        let headers = try echo(
            try await transport.send(
                TransportRequest(
                    method: .post,
                    url: try LiveServers.url(LiveServers.httpbin, "anything"),
                    body: .file(file)
                )
            )
        )
        #expect(headers.header("Content-Length") == String(size))
        #expect(headers.header("Transfer-Encoding") == nil)
        #expect(headers.header("Content-Type") == "application/octet-stream")
    }

    @Test func aMultipartFileArrivesByteExactThroughTheProxy() async throws {
        struct MultipartEcho: Decodable {
            struct File: Decodable { var filename: String, size: Int, sha256: String }
            var form: [String: [String]]
            var files: [String: [File]]
        }
        let directory = try TemporaryDirectory()
        let size = Int(WebServiceProxy.multipartMemoryLimit) + 1_000_001  // streamed from a file
        let file = try directory.write(fixtureBytes(count: size, seed: 9), named: "large.bin")
        let proxy = WebServiceProxy(baseURL: try #require(LiveServers.sample), transport: transport)
        proxy.encoding = .multipartFormData
        let reports = Protected<[TransferProgress]>([])
        let echo: MultipartEcho = try await proxy.invoke(
            .post,
            path: "echo/multipart",
            arguments: ["title": "big", "file": file],
            progress: ProgressHandler { progress in reports.withLock { $0.append(progress) } }
        )
        let uploaded = try #require(echo.files["file"]?.first)
        #expect(uploaded.size == size)
        #expect(uploaded.filename == "large.bin")
        #expect(uploaded.sha256 == (try Self.sha256(of: file)))
        #expect(echo.form["title"] == ["big"])
        let all = reports.current
        #expect(all.count > 10, "upload progress is reported as chunks go out")
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
        #expect(all.last?.fractionSent == 1)
        #expect(all.last?.fractionReceived == 1)
    }

    /// As with `URLSession`, credentials in the URL are sent (Basic), and stay with their origin
    /// when a redirect leaves it.
    @Test func credentialsInTheURLAreSentToTheirOriginOnly() async throws {
        let base = try #require(LiveServers.httpbin)
        let host = try #require(base.host)
        let port = try #require(base.port)
        let url = try #require(URL(string: "http://us%40er:p%3Ass@\(host):\(port)/basic-auth/us@er/p:ss"))
        let response = try await transport.send(TransportRequest(method: .get, url: url))
        #expect(response.statusCode == 200)
        let elsewhere = try #require(
            "http://localhost:\(port)/anything".addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        )
        let redirect = try #require(URL(string: "http://user:passwd@\(host):\(port)/redirect-to?url=\(elsewhere)"))
        let echo = try echo(try await transport.send(TransportRequest(method: .get, url: redirect)))
        #expect(echo.url == "http://localhost:\(port)/anything")
        #expect(echo.header("Authorization") == nil)
    }

    // MARK: Responses

    @Test func repeatedResponseHeadersAreJoined() async throws {
        let url = try LiveServers.url(LiveServers.httpbin, "response-headers?X-Kilo=a&X-Kilo=b&X-Other=c")
        let response = try await transport.send(TransportRequest(method: .get, url: url))
        #expect(response.headers["x-kilo"] == "a, b")
        #expect(response.headers["X-KILO"] == "a, b")
        #expect(response.headers["x-other"] == "c")
    }

    @Test func gzipBodiesAreDecompressed() async throws {
        let response = try await transport.send(
            TransportRequest(method: .get, url: try LiveServers.url(LiveServers.httpbin, "gzip"))
        )
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"gzipped\": true"))
    }

    /// A gzip body's `Content-Length` counts the compressed bytes, and the client hands over the
    /// decompressed ones: progress does not take the first for the size of the second, in memory
    /// or to a file. Before the fix, nearly every report had every expected byte.
    @Test(arguments: [false, true])
    func aCompressedBodysProgressDoesNotReachTheEndEarly(toFile: Bool) async throws {
        let directory = try TemporaryDirectory()
        let reports = Protected<[TransferProgress]>([])
        let file = directory.url.appendingPathComponent("records.json")
        let response = try await transport.send(
            TransportRequest(
                method: .get,
                url: try LiveServers.url(LiveServers.fault, "gzip-records?n=50000"),
                progress: ProgressObserver { progress in reports.withLock { $0.append(progress) } }
            ),
            consuming: toFile ? .file(file) : .memory()
        )
        #expect(response.statusCode == 200)
        let size = toFile ? try Data(contentsOf: file).count : response.body.count
        #expect(size > 5_000_000)
        let all = reports.current
        #expect(all.count > 2, "the body came in too few chunks to tell")
        let early = all.dropLast().filter { report in
            report.expectedBytesToReceive.map { report.bytesReceived >= $0 } ?? false
        }
        #expect(early.count == 0, "\(early.count) of \(all.count) reports had every expected byte before the end")
        #expect(all.last?.bytesReceived == Int64(size))
        #expect(all.last?.fractionReceived == 1)
    }

    @Test func headHasHeadersAndNoBody() async throws {
        let response = try await transport.send(
            TransportRequest(method: .head, url: try LiveServers.url(LiveServers.sample, "bytes?n=1000"))
        )
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Length"] == "1000")
        #expect(response.body.isEmpty)
    }

    @Test(arguments: [0, 1, 5_000_003])
    func aDownloadIsStreamedToTheFileByteExact(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("old".utf8), named: "download.bin")
        let reports = Protected<[TransferProgress]>([])
        let response = try await transport.send(
            TransportRequest(
                method: .get,
                url: try LiveServers.url(LiveServers.sample, "bytes?n=\(size)"),
                progress: ProgressObserver { progress in reports.withLock { $0.append(progress) } }
            ),
            consuming: .file(destination)
        )
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(try Data(contentsOf: destination) == Data((0..<size).map { UInt8($0 % 251) }))
        #expect(try directory.contents() == ["download.bin"])
        let received = reports.current.map(\.bytesReceived)
        #expect(received == received.sorted())
        #expect(reports.current.last?.fractionReceived == 1)
        if size > 1_000_000 {
            #expect(received.count > 5, "download progress is reported as the body is written")
        }
    }

    /// A download into a folder that does not exist fails with the file system's reason, as
    /// `URLSessionTransport` reports it (`CocoaError.fileNoSuchFile`), not a bare
    /// `fileWriteUnknown` that says nothing of why.
    @Test func aDownloadIntoAMissingFolderSaysWhy() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("missing/download.bin")
        let request = TransportRequest(
            method: .get,
            url: try LiveServers.url(LiveServers.sample, "bytes?n=10")
        )
        let error = await #expect(throws: CocoaError.self) {
            try await transport.send(request, consuming: .file(destination))
        }
        #expect(error?.code == .fileNoSuchFile, "\(String(describing: error))")
        #expect(try directory.contents() == [])
    }

    @Test func anErrorStatusBodyGoesToTheFileToo() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("error.txt")
        let response = try await transport.send(
            TransportRequest(
                method: .get,
                url: try LiveServers.url(LiveServers.sample, "error")
            ),
            consuming: .file(destination)
        )
        #expect(response.statusCode == 500)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "This is an error message.")
    }

    @Test func aHugeDownloadStaysInBoundedMemory() async throws {
        let megabytes = 256
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("huge.bin")
        let request = TransportRequest(
            method: .get,
            url: try LiveServers.url(LiveServers.fault, "huge?mb=\(megabytes)"),
            progress: ProgressObserver { _ in Thread.sleep(forTimeInterval: 0.001) }
        )  // a slow handler
        guard let before = LiveServers.residentMemory() else {
            _ = try await transport.send(request, consuming: .file(destination))
            return
        }
        let sampler = Task {
            var peak = before
            while !Task.isCancelled {
                peak = max(peak, LiveServers.residentMemory() ?? 0)
                try? await Task.sleep(for: .milliseconds(10))
            }
            return peak
        }
        _ = try await transport.send(request, consuming: .file(destination))
        sampler.cancel()
        let peak = await sampler.value
        let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber
        #expect(size?.intValue == megabytes << 20)
        print("AsyncHTTPClientTransportTests: \(megabytes) MiB download, RSS grew by \((peak - before) >> 20) MiB")
        #expect(peak - before < 64 << 20)
    }

    // MARK: Redirects

    @Test(arguments: [301, 302, 303])
    func aPostRedirectedBy30xArrivesAsGETWithoutABody(status: Int) async throws {
        let url = try LiveServers.url(LiveServers.httpbin, "redirect-to?url=/anything&status_code=\(status)")
        let echo = try echo(
            try await transport.send(
                TransportRequest(
                    method: .post,
                    url: url,
                    headers: ["Content-Type": "text/plain"],
                    body: .data(Data("x".utf8))
                )
            )
        )
        #expect(echo.method == "GET")
        #expect(echo.data.isEmpty)
        #expect(echo.header("Content-Type") == nil)
    }

    /// Only a `POST` becomes a `GET` on a 301 or 302: a `PUT`, `PATCH` or `DELETE` made into a
    /// `GET` would report the target's 200 as if it had been done. A 303 makes any of them a `GET`.
    @Test(arguments: [HTTPMethod.put, .patch, .delete], [301, 302, 303])
    func otherMethodsKeepTheirMethodAndBodyOn301And302(method: HTTPMethod, status: Int) async throws {
        let url = try LiveServers.url(LiveServers.httpbin, "redirect-to?url=/anything&status_code=\(status)")
        let echo = try echo(
            try await transport.send(
                TransportRequest(
                    method: method,
                    url: url,
                    headers: ["Content-Type": "text/plain"],
                    body: .data(Data("x".utf8))
                )
            )
        )
        if status == 303 {
            #expect(echo.method == "GET")
            #expect(echo.data.isEmpty)
        } else {
            #expect(echo.method == method.rawValue)
            #expect(echo.data == "x")
        }
    }

    /// Through a client that follows redirects itself (`HTTPClient.shared`) and one that leaves
    /// them to the transport, with a body from memory and one from a file, to another origin
    /// (`localhost` for `127.0.0.1`).
    ///
    /// The fault server reads the body before it redirects. httpbin under gunicorn answers at
    /// once, reads at most 64 KiB more of a body it did not want, and then closes the connection
    /// unread, which resets it: a client still busy sending may lose the redirect with the reset,
    /// as TCP has it, whatever the client.
    @Test(arguments: [307, 308], [false, true])
    func aPostRedirectedBy307Or308KeepsMethodAndBody(status: Int, throughSharedClient: Bool) async throws {
        let directory = try TemporaryDirectory()
        let data = fixtureBytes(count: 700_001, seed: UInt64(status))
        let file = try directory.write(data, named: "upload.bin")
        let port = try #require(LiveServers.fault?.port)
        let target = try #require(
            "http://localhost:\(port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        )
        let url = try LiveServers.url(LiveServers.fault, "redirect-to?code=\(status)&url=\(target)")
        let transport = throughSharedClient ? AsyncHTTPClientTransport() : transport
        for body in [TransportRequest.Body.data(data), .file(file)] {
            let response = try await transport.send(TransportRequest(method: .post, url: url, body: body))
            #expect(response.statusCode == 200)
            #expect(response.headers["X-Method"] == "POST", "\(body)")
            #expect(response.body == data, "\(body)")
        }
    }

    /// A `Location` that is not an `http` or `https` URL with a host and a valid port is not
    /// followed: the redirect's own response is the answer. The client trapped on a port past
    /// 65535.
    @Test(arguments: [
        "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "http:///echo",
        "http://127.0.0.1:65536/echo", "http://[::1]:70000/echo",
    ])
    func aRedirectToAnythingButAnHTTPURLIsNotFollowed(location: String) async throws {
        let query = try #require(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = try LiveServers.url(LiveServers.fault, "redirect-to?url=\(query)")
        let response = try await transport.send(TransportRequest(method: .get, url: url))
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == location)
    }

    /// A URL whose port is past 65535 fails as a bad URL, as over `URLSession`; the client trapped.
    @Test func aPortPast65535IsABadURL() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:70000/echo"))
        let error = await #expect(throws: URLError.self) {
            try await transport.send(TransportRequest(method: .get, url: url))
        }
        #expect(error?.code == .badURL)
    }

    /// `RedirectPolicy.maximumRedirects`, 20, as over `URLSession`.
    @Test func tooManyRedirectsFail() async throws {
        let error = await #expect(throws: URLError.self) {
            try await transport.send(
                TransportRequest(method: .get, url: try LiveServers.url(LiveServers.httpbin, "redirect/21"))
            )
        }
        #expect(error?.code == .httpTooManyRedirects)
        let followed = try await transport.send(
            TransportRequest(method: .get, url: try LiveServers.url(LiveServers.httpbin, "redirect/20"))
        )
        #expect(followed.statusCode == 200)
    }

    @Test func aDownloadFollowsARedirectAndKeepsOnlyTheFinalBody() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("download.bin")
        let target = try LiveServers.url(LiveServers.sample, "bytes?n=1000")
        let url = try LiveServers.url(
            LiveServers.httpbin,
            "redirect-to?url=\(target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        )
        _ = try await transport.send(TransportRequest(method: .get, url: url), consuming: .file(destination))
        #expect(try Data(contentsOf: destination) == Data((0..<1000).map { UInt8($0 % 251) }))
    }

    // MARK: Timeouts

    /// A response whose body stops coming times out one idle interval after its last byte, also
    /// after a redirect: the watchdog must not sleep past that while it stands back for the
    /// client's response-head deadline.
    @Test(arguments: [false, true])
    func aBodyThatStallsTimesOutOneIntervalAfterItsLastByte(redirected: Bool) async throws {
        // The first byte comes at once, the second 20 s later. The interval is long, so that a
        // busy machine's delays stay well short of the second interval that a watchdog sleeping
        // too long would add.
        let drip = "drip?duration=40&numbytes=2&delay=0"
        let target = try #require(drip.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let path = redirected ? "redirect-to?url=\(target)" : drip
        let request = TransportRequest(
            method: .get,
            url: try LiveServers.url(LiveServers.httpbin, path),
            timeoutInterval: 8
        )
        let start = ContinuousClock.now
        let error = await #expect(throws: URLError.self) { try await transport.send(request) }
        #expect(error?.code == .timedOut)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(7_950))
        #expect(elapsed < .seconds(15), "timed out after \(elapsed)")
    }

    // MARK: Cancellation

    @Test func cancellingADownloadMidBodyGivesCancelledAndLeavesNoFile() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("old".utf8), named: "download.bin")
        let started = Protected(false)
        let request = TransportRequest(
            method: .get,
            // 2 MiB of a longer body, then nothing: only the cancellation can end the download.
            url: try LiveServers.url(LiveServers.fault, "stall?kb=2048"),
            progress: ProgressObserver { progress in
                if progress.bytesReceived > 0 { started.withLock { $0 = true } }
            }
        )
        let task = Task { try await transport.send(request, consuming: .file(destination)) }
        while !started.current {
            try await Task.sleep(for: .milliseconds(5))
        }
        let cancelled = ContinuousClock.now
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        // Only the cancellation can end it; the bound is loose because a busy machine can hold
        // up the awaiting test itself for seconds.
        #expect(ContinuousClock.now - cancelled < .seconds(40))
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try directory.contents() == ["download.bin"])
    }

    @Test func cancellingAnUploadMidBodyGivesCancelled() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(fixtureBytes(count: 64 << 20), named: "upload.bin")
        let started = Protected(false)
        let request = TransportRequest(
            method: .post,
            url: try LiveServers.url(LiveServers.sample, "echo/body"),
            body: .file(file),
            progress: ProgressObserver { progress in
                if progress.bytesSent > 0 { started.withLock { $0 = true } }
            }
        )
        let task = Task { try await transport.send(request) }
        while !started.current {
            try await Task.sleep(for: .milliseconds(1))
        }
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    /// The SHA-256 of a file, from the system's `sha256sum`.
    private static func sha256(of file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
