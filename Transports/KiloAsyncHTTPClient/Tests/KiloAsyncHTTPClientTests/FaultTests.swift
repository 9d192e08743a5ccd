import AsyncHTTPClient
import Foundation
import Kilo
import Testing

@testable import KiloAsyncHTTPClient

/// Real failures from the fault server and closed ports give the `URLError` codes that
/// `URLSessionTransport` gives for them, and nothing hangs.
@Suite(
    .enabled(if: LiveServers.fault != nil, "needs KILO_FAULT_URL (run Scripts/test-transports.sh)"),
    .timeLimit(.minutes(2))
)
struct FaultTests {
    private let transport = LiveServers.transport
    private let clock = ContinuousClock()

    private func get(_ path: String, timeout: TimeInterval? = nil) throws -> TransportRequest {
        TransportRequest(method: .get, url: try LiveServers.url(LiveServers.fault, path), timeoutInterval: timeout)
    }

    /// `drop`: closed after the headers and 10 of 1000 promised bytes; `reset`: reset without a
    /// response; `flaky-drop?how=close`: closed without a response.
    @Test(arguments: ["drop", "reset", "flaky-drop?how=close&failures=9", "flaky-drop?how=partial&failures=9"])
    func aDroppedConnectionIsNetworkConnectionLost(path: String) async throws {
        let key = LiveServers.makeKey("drop")
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await transport.send(try get("\(path)\(path.contains("?") ? "&" : "?")key=\(key)"))
        }
        #expect(error?.code == .networkConnectionLost)
        #expect(error?.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(clock.now - start < .seconds(40))  // the client's read timeout is 60 s
    }

    @Test func aRefusedConnectionIsCannotConnectToHostAtOnce() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:\(try LiveServers.closedPort())/ok"))
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await transport.send(TransportRequest(method: .get, url: url))
        }
        #expect(error?.code == .cannotConnectToHost)
        #expect(error?.failingURL == url)
        #expect(clock.now - start < .seconds(40))  // the client's connect timeout is 60 s
    }

    /// `HTTPClient.shared` retries a refused connection until its connect timeout (90 s); a
    /// request timeout cuts that short and still reports why.
    @Test func aRefusedConnectionThroughTheSharedClientReportsTheRefusalAtTheTimeout() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:\(try LiveServers.closedPort())/ok"))
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await AsyncHTTPClientTransport().send(TransportRequest(method: .get, url: url, timeoutInterval: 1))
        }
        #expect(error?.code == .cannotConnectToHost)
        #expect(clock.now - start < .seconds(40))  // the shared client retries for 90 s
    }

    @Test func aHangingServerTimesOutAfterTheIdleInterval() async throws {
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await transport.send(try get("hang?key=\(LiveServers.makeKey("hang"))", timeout: 0.5))
        }
        #expect(error?.code == .timedOut)
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(450))
        #expect(elapsed < .seconds(30))  // without the timeout, it would hang for 60 s
    }

    /// A body that keeps coming, a byte every half second for 6 s, outlasts a 2-second idle
    /// timeout (4 times the gaps): data restarts the timer. Read for twice the interval and more,
    /// then cancelled; a timer that ignored data would have failed it after 2 s.
    @Test func aBodyThatKeepsComingIsNotTimedOut() async throws {
        let key = LiveServers.makeKey("keeps")
        let response = try await transport.stream(try get("drip?interval=0.5&key=\(key)", timeout: 2))
        let start = clock.now
        var received = 0
        for try await chunk in response.body {
            received += chunk.count
            if clock.now - start > .seconds(6) { break }
        }
        #expect(received >= 8, "\(received) bytes in 6 s")
    }

    @Test func cancellingAHangingRequestGivesCancelledPromptly() async throws {
        let key = LiveServers.makeKey("hang-cancel")
        let request = try get("hang?key=\(key)")
        let task = Task { try await transport.send(request) }
        while try await LiveServers.faultCount(key) < 1 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let cancelled = clock.now
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(clock.now - cancelled < .seconds(40))  // the hang ends only at the 60 s timeout
    }

    @Test func anUntrustedCertificateIsRefusedAndNothingIsSent() async throws {
        let base = try #require(LiveServers.faultTLS, "KILO_FAULT_TLS_URL is not set")
        let key = LiveServers.makeKey("tls")
        let url = try #require(URL(string: "ok?key=\(key)", relativeTo: base)?.absoluteURL)
        // HTTPClient.shared retries a failed handshake until its connect timeout (90 s); a request
        // timeout cuts that short and still reports why.
        for (transport, timeout) in [(transport, nil), (AsyncHTTPClientTransport(), 2 as TimeInterval?)] {
            let error = await #expect(throws: URLError.self) {
                try await transport.send(TransportRequest(method: .get, url: url, timeoutInterval: timeout))
            }
            print(
                "FaultTests: untrusted certificate gave URLError",
                error?.code.rawValue ?? 0,
                error?.localizedDescription ?? ""
            )
            #expect(error?.code == .serverCertificateUntrusted)
        }
        #expect(try await LiveServers.faultCount(key) == 0)
    }

    @Test func aHeaderWithAControlCharacterIsRefusedAndNothingIsSent() async throws {
        let key = LiveServers.makeKey("control")
        var request = try get("echo?key=\(key)")
        request.headers["X-Token"] = "a\u{1}b"
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) { try await transport.send(request) }
        request.headers["X-Token"] = "a\r\nX-Injected: 1"
        await #expect(throws: RequestError.invalidHeaderValue("X-Token")) { try await transport.send(request) }
        #expect(try await LiveServers.faultCount(key) == 0)
    }

    @Test func aMissingUploadFileIsFileDoesNotExistAndNothingIsSent() async throws {
        let key = LiveServers.makeKey("missing-file")
        let directory = try TemporaryDirectory()
        let request = TransportRequest(
            method: .post,
            url: try LiveServers.url(LiveServers.fault, "echo?key=\(key)"),
            body: .file(directory.url.appendingPathComponent("missing.bin"))
        )
        let error = await #expect(throws: URLError.self) { try await transport.send(request) }
        #expect(error?.code == .fileDoesNotExist)
        #expect(try await LiveServers.faultCount(key) == 0)
    }

    @Test func droppedConnectionsAreRetriedByRetryingTransport() async throws {
        for how in ["close", "reset", "partial"] {
            let key = LiveServers.makeKey("retry-\(how)")
            let retrying = RetryingTransport(transport, policy: RetryPolicy(maximumAttempts: 3))
            let response = try await retrying.send(try get("flaky-drop?key=\(key)&failures=1&how=\(how)"))
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"attempts\": 2"), "\(how)")
        }
    }

    /// A gzip body without its last 8 bytes, framed by its `Content-Length`: the body cannot be
    /// decoded, which `Docs/Transports.md` lists as `cannotDecodeContentData` (not `unknown`, which
    /// no caller can act on).
    @Test func aTruncatedGzipBodyIsCannotDecodeContentData() async throws {
        let error = await #expect(throws: URLError.self) {
            try await transport.send(try get("malformed?how=gzip-truncated"))
        }
        #expect(error?.code == .cannotDecodeContentData, "\(error?.localizedDescription ?? "")")
    }

    /// A body in a coding the client does not decode (`br`, `zstd`, `x-gzip`, which the client
    /// does not take for gzip, or one that no one knows) fails with `cannotDecodeContentData`: it
    /// was handed over still encoded, as if it were the body.
    @Test(arguments: [
        "bomb?encoding=br&mb=1", "bomb?encoding=zstd&mb=1", "malformed?how=x-gzip", "malformed?how=unknown-encoding",
    ])
    func aBodyInACodingTheClientDoesNotDecodeIsCannotDecodeContentData(path: String) async throws {
        let error = await #expect(throws: URLError.self) {
            try await transport.send(try get(path))
        }
        #expect(error?.code == .cannotDecodeContentData, "\(path): \(error?.localizedDescription ?? "")")
    }

    /// An event stream in brotli, which the client's decompressor does not decode, fails with
    /// `cannotDecodeContentData` however it is read: it ended with no events and no error.
    @Test func aBrotliEventStreamIsCannotDecodeContentDataForEveryKindOfRead() async throws {
        let proxy = WebServiceProxy(baseURL: try LiveServers.url(LiveServers.fault, "/"), transport: transport)
        let arguments: [String: Any] = ["encoding": "br", "mb": 1, "type": "text/event-stream"]
        let streamed = await #expect(throws: URLError.self) {
            let events = try await proxy.stream(.get, path: "bomb", arguments: arguments, as: .serverSentEvents)
            for try await event in events {
                Issue.record("an event: \(event)")
            }
        }
        let invoked = await #expect(throws: URLError.self) {
            _ = try await proxy.invoke(.get, path: "bomb", arguments: arguments) { content, _ in content }
        }
        let directory = try TemporaryDirectory()
        let downloaded = await #expect(throws: URLError.self) {
            try await proxy.download(path: "bomb", arguments: arguments, to: directory.url.appendingPathComponent("e"))
        }
        for error in [streamed, invoked, downloaded] {
            #expect(error?.code == .cannotDecodeContentData, "\(error?.localizedDescription ?? "no error")")
        }
        #expect(try directory.contents().isEmpty)
    }

    /// A response with no body by definition (to a `HEAD`, a 204 or a 304, or a `Content-Length`
    /// of 0) whose headers name a content encoding, as a server's compression may label them:
    /// there is nothing to decompress, and `URLSession` returns it as it is.
    @Test(arguments: [
        (HTTPMethod.head, "length=1234", 200), (.get, "status=204", 204), (.get, "status=304", 304),
        (.get, "length=0", 200), (.head, "length=1234&encoding=deflate", 200),
        (.get, "status=204&encoding=deflate", 204),
    ])
    func aResponseWithoutABodyIsNotDecompressed(method: HTTPMethod, query: String, status: Int) async throws {
        let request = TransportRequest(
            method: method,
            url: try LiveServers.url(LiveServers.fault, "encoded-empty?\(query)")
        )
        let response = try await transport.send(request)
        #expect(response.statusCode == status)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Encoding"] != nil)
    }

    @Test func aDownloadWithoutABodyIsNotDecompressed() async throws {
        let directory = try TemporaryDirectory()
        let request = try get("encoded-empty?status=204")
        let file = directory.url.appendingPathComponent("empty.bin")
        let response = try await transport.send(request, consuming: .file(file))
        #expect(response.statusCode == 204)
        #expect(try Data(contentsOf: directory.url.appendingPathComponent("empty.bin")).isEmpty)
    }

    @Test func aFailedDownloadLeavesTheDestinationAlone() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.write(Data("old".utf8), named: "kept.bin")
        let request = try get("drop")
        await #expect(throws: URLError.self) { try await transport.send(request, consuming: .file(destination)) }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try directory.contents() == ["kept.bin"])
    }
}
