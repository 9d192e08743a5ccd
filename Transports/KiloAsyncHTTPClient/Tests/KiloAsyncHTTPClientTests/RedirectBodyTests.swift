import Foundation
import Kilo
import Testing

@testable import KiloAsyncHTTPClient

/// A redirect whose body never ends (the fault server's `/redirect-endless`), flooding or
/// dripping: a followed one is read only in part and its connection closed; one that is the answer
/// (its `Location` refused, or missing) is read within the caller's limits; cancelling or a
/// deadline ends either at once, and the next request is not held up.
///
/// Serialized: a flood runs the server as fast as loopback goes, which a busy machine feels.
/// Timings allow four times what they need.
@Suite(
    .serialized,
    .enabled(if: LiveServers.fault != nil, "needs KILO_FAULT_URL (run Scripts/test-transports.sh)"),
    .timeLimit(.minutes(2))
)
struct RedirectBodyTests {
    private let clock = ContinuousClock()

    /// The idle timeouts a test runs with: none, where the transport reads in the calling task,
    /// and one, where it reads beside a watchdog (`IdleTimer`).
    private static let timeouts: [TimeInterval?] = [nil, 30]

    /// A proxy on the fault server through the transport, its requests bounded by `deadline`.
    private func proxy(deadline: TimeInterval? = 2, timeout: TimeInterval?) throws -> WebServiceProxy {
        let base = try #require(LiveServers.fault, "KILO_FAULT_URL is not set")
        return WebServiceProxy(baseURL: base, transport: LiveServers.transport)
            .withTimeout(timeout)
            .withLimits { $0.deadline = deadline }
    }

    /// The arguments of `/redirect-endless`, recorded under `key`.
    private static func endless(_ rate: String, to location: String?, key: String) -> [String: Any] {
        var arguments: [String: Any] = ["rate": rate, "key": key]
        arguments["to"] = location
        return arguments
    }

    /// Checks that a request on `proxy` right after is answered as quickly as ever.
    private func expectTheNextRequestIsNotHeldUp(on proxy: WebServiceProxy) async throws {
        let start = clock.now
        let result: OK = try await proxy.invoke(.get, path: "ok")
        #expect(result.ok)
        #expect(clock.now - start < .seconds(2), "a request on loopback takes milliseconds")
    }

    /// The transport reads at most ``Redirect/maximumBodySize`` of a followed redirect's body and
    /// closes its connection, which the server sees, and the target answers.
    @Test(arguments: [301, 302, 303, 307, 308])
    func aFloodingRedirectIsCutShortAndFollowed(code: Int) async throws {
        let key = LiveServers.makeKey("endless-\(code)")
        let url = try LiveServers.url(LiveServers.fault, "redirect-endless?code=\(code)&to=/ok&key=\(key)")
        let start = clock.now
        let response = try await LiveServers.transport.send(TransportRequest(method: .get, url: url))
        #expect(clock.now - start < .seconds(8))
        #expect(response.statusCode == 200)
        #expect(try JSONDecoder().decode(OK.self, from: response.body).ok)
        let transfer = try await LiveServers.faultTransfer(key)
        #expect(transfer.closed == true, "the server sent \(transfer.sent ?? 0) bytes")
    }

    /// Under a 2-second deadline, a flooding redirect ends well within it, whether it is followed,
    /// refused (a `Location` Kilo does not follow) or has no `Location`: then the 3xx is the answer,
    /// a ``WebServiceError`` with at most ``WebServiceProxy/errorBodyLimit`` bytes of its body.
    @Test(arguments: ["/ok", "ftp://127.0.0.1/file", "javascript:alert(1)", nil], timeouts)
    func aFloodingRedirectEndsWithinTheDeadline(location: String?, timeout: TimeInterval?) async throws {
        let key = LiveServers.makeKey("endless-flood")
        let proxy = try proxy(timeout: timeout)
        let start = clock.now
        do {
            let result: OK = try await proxy.invoke(
                .get,
                path: "redirect-endless",
                arguments: Self.endless("flood", to: location, key: key)
            )
            #expect(location == "/ok" && result.ok)
        } catch let error as WebServiceError {
            #expect(location != "/ok")
            #expect(error.statusCode == 302)
            #expect(error.headers["Location"] == location)
            #expect(!error.body.isEmpty && error.body.count <= WebServiceProxy.errorBodyLimit)
        }
        #expect(clock.now - start < .seconds(8), "the deadline is 2 s")
        let transfer = try await LiveServers.faultTransfer(key)
        #expect(transfer.closed == true, "the server sent \(transfer.sent ?? 0) bytes")
        try await expectTheNextRequestIsNotHeldUp(on: proxy)
    }

    /// A refused or missing `Location`'s flooding 3xx, streamed or downloaded, fails as any error
    /// response does, within the deadline.
    @Test(arguments: ["ftp://127.0.0.1/file", nil], timeouts)
    func aFloodingRedirectThatIsTheAnswerFailsEveryKindOfRead(location: String?, timeout: TimeInterval?) async throws {
        let proxy = try proxy(timeout: timeout)
        let arguments = Self.endless("flood", to: location, key: LiveServers.makeKey("endless-read"))
        let start = clock.now
        let streamed = await #expect(throws: WebServiceError.self) {
            let lines = try await proxy.stream(.get, path: "redirect-endless", arguments: arguments, as: .lines)
            for try await _ in lines {}
        }
        #expect(streamed?.statusCode == 302)
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("moved.txt")
        let downloaded = await #expect(throws: WebServiceError.self) {
            try await proxy.download(path: "redirect-endless", arguments: arguments, to: destination)
        }
        #expect(downloaded?.statusCode == 302)
        #expect(clock.now - start < .seconds(16), "two requests, each under a 2 s deadline")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// A dripping redirect, followed or the answer, fails with the deadline's ``LimitError`` when
    /// it passes, not later.
    @Test(arguments: ["/ok", "ftp://127.0.0.1/file", nil], timeouts)
    func aDrippingRedirectFailsAtTheDeadline(location: String?, timeout: TimeInterval?) async throws {
        let proxy = try proxy(timeout: timeout)
        let start = clock.now
        let error = await #expect(throws: LimitError.self) {
            let _: OK = try await proxy.invoke(
                .get,
                path: "redirect-endless",
                arguments: Self.endless("drip", to: location, key: LiveServers.makeKey("endless-drip"))
            )
        }
        #expect(error == .deadlineExceeded(after: 2))
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(1_900))
        #expect(elapsed < .seconds(8), "the deadline is 2 s")
        try await expectTheNextRequestIsNotHeldUp(on: proxy)
    }

    /// Cancelling the calling task while a redirect's body is read ends the request at once with
    /// `URLError(.cancelled)`: dripping (its 64 KiB would take minutes), or flooding on to a target
    /// that hangs, whether it is followed or the answer. No deadline stands in for the
    /// cancellation.
    @Test(arguments: [("drip", "/ok"), ("flood", "/hang"), ("drip", nil), ("flood", nil)], timeouts)
    func cancellingWhileARedirectIsReadEndsAtOnce(
        of redirect: (rate: String, location: String?),
        timeout: TimeInterval?
    ) async throws {
        let (rate, location) = redirect
        let key = LiveServers.makeKey("endless-cancel")
        let proxy = try proxy(deadline: nil, timeout: timeout)
        let task = Task {
            let _: OK = try await proxy.invoke(
                .get,
                path: "redirect-endless",
                arguments: Self.endless(rate, to: location, key: key)
            )
        }
        while try await LiveServers.faultCount(key) < 1 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = clock.now
        task.cancel()
        do {
            try await task.value
            // A flood that is the answer may fail at its error body limit first.
            #expect(Bool(false), "\(rate) to \(location ?? "nowhere") succeeded")
        } catch let error as URLError {
            #expect(error.code == .cancelled)
        } catch let error as WebServiceError {
            #expect(rate == "flood" && location == nil && error.statusCode == 302)
        }
        #expect(clock.now - cancelled < .seconds(2), "cancelling takes milliseconds")
        try await expectTheNextRequestIsNotHeldUp(on: proxy)
    }

    private struct OK: Decodable {
        var ok: Bool
    }
}
