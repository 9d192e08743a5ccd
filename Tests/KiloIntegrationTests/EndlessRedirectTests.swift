import Foundation
import Kilo
import Testing

/// A redirect whose body drips without end (the fault server's `/redirect-endless?rate=drip`), on
/// every transport: followed, or the answer (a `Location` Kilo refuses, or none). The deadline
/// ends it when it passes and cancelling ends it at once, and the proxy's next request is not held
/// up.
///
/// Only the dripping body runs here. One that floods wedges Linux's `URLSession` for the whole
/// process (swift-corelibs-foundation 6.3.1), so that every later test fails; async-http-client's
/// own tests (`RedirectBodyTests` in Transports/KiloAsyncHTTPClient) flood it.
@Suite(
    .enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(2))
)
struct EndlessRedirectTests {
    private let clock = ContinuousClock()

    /// The arguments of `/redirect-endless`, dripping, recorded under `key`.
    private static func dripping(to location: String?, key: String) -> [String: Any] {
        var arguments: [String: Any] = ["rate": "drip", "key": key]
        arguments["to"] = location
        return arguments
    }

    /// Checks that a request on `proxy` right after is answered as quickly as ever.
    private func expectTheNextRequestIsNotHeldUp(on proxy: WebServiceProxy) async throws {
        let start = clock.now
        let result: FaultServer.OK = try await proxy.invoke(.get, path: "ok")
        #expect(result.ok)
        #expect(clock.now - start < .seconds(4), "a request on loopback takes milliseconds")
    }

    /// A 2-second deadline ends the request when it passes, and the server sees the connection
    /// close.
    @Test(arguments: ["/ok", "ftp://127.0.0.1/file", nil])
    func aDrippingRedirectFailsAtTheDeadline(location: String?) async throws {
        let proxy = try FaultServer.proxy().withLimits { $0.deadline = 2 }
        for _ in 0..<3 {
            let key = FaultServer.makeKey("endless-drip")
            let start = clock.now
            let error = await #expect(throws: LimitError.self) {
                let _: FaultServer.OK = try await proxy.invoke(
                    .get,
                    path: "redirect-endless",
                    arguments: Self.dripping(to: location, key: key)
                )
            }
            let elapsed = clock.now - start
            #expect(error == .deadlineExceeded(after: 2))
            #expect(elapsed >= .seconds(1.9))
            #expect(elapsed < .seconds(10), "4 times the deadline and 2 s")
            guard try await FaultServer.count(key) > 0 else { continue }  // never sent: again
            #expect(try await FaultServer.transfer(key).closed == true, "the server saw the connection close")
            try await expectTheNextRequestIsNotHeldUp(on: proxy)
            return
        }
        Issue.record("three requests passed their deadline before they reached the server")
    }

    /// Cancelling the calling task while the body drips gives `URLError(.cancelled)` at once,
    /// with no deadline to stand in for it.
    @Test(arguments: ["/ok", nil])
    func cancellingADrippingRedirectEndsItAtOnce(location: String?) async throws {
        let key = FaultServer.makeKey("endless-cancel")
        let proxy = try FaultServer.proxy().withLimits { $0.deadline = nil }
        let task = Task {
            let _: FaultServer.OK = try await proxy.invoke(
                .get,
                path: "redirect-endless",
                arguments: Self.dripping(to: location, key: key)
            )
        }
        try await FaultServer.waitForCount(1, key: key)
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = clock.now
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(clock.now - cancelled < .seconds(4), "cancelling takes milliseconds")
        try await expectTheNextRequestIsNotHeldUp(on: proxy)
    }
}
