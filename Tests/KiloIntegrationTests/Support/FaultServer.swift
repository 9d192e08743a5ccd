import Foundation
import Kilo
import Testing

/// Kilo's fault-injecting server (`Service/fault_server.py`), which `Scripts/servers.sh` starts.
///
/// A suite that needs it is enabled only when its variable is set:
/// `.enabled(if: FaultServer.url != nil, "needs KILO_FAULT_URL (run Scripts/test.sh)")`.
enum FaultServer {
    /// The plain HTTP listener, ending in `/`.
    static let url = baseURL(from: "KILO_FAULT_URL")

    /// The HTTPS listener, whose self-signed certificate no client should trust.
    static let tlsURL = baseURL(from: "KILO_FAULT_TLS_URL")

    /// The HTTPS listener whose certificate, for 127.0.0.1 and localhost, a private CA signed: the
    /// CA whose certificate is at `KILO_TRUSTED_TLS_CA`, which a client must be told to trust.
    static let trustedTLSURL = baseURL(from: "KILO_TRUSTED_TLS_URL")

    /// A key no other test uses, so the server's count for it is this test's alone.
    ///
    /// - Parameter label: A readable prefix, shown in the server's log.
    /// - Returns: The key.
    static func makeKey(_ label: String) -> String {
        "\(label)-\(UUID().uuidString.prefix(8))"
    }

    /// Makes a proxy for the fault server that sends through `wrap` of the transport under test
    /// (see ``Servers/makeProxy(baseURL:)``).
    ///
    /// - Parameter wrap: Wraps the live transport, in a ``RetryingTransport`` say.
    /// - Throws: An expectation failure when `KILO_FAULT_URL` is not set.
    static func proxy(_ wrap: (any Transport) -> any Transport = { $0 }) throws -> WebServiceProxy {
        let url = try #require(url, "KILO_FAULT_URL is not set")
        return WebServiceProxy(baseURL: url, transport: wrap(Servers.makeProxy(baseURL: url).transport))
    }

    /// How many requests with `key` in their query have reached the server so far.
    ///
    /// - Parameter key: The key.
    /// - Returns: The count, asked for with a plain request of its own.
    static func count(_ key: String) async throws -> Int {
        let counted: Counted = try await proxy().invoke(.get, path: "count", arguments: ["key": key])
        return counted.count
    }

    /// Waits until the server has counted `expected` requests under `key`.
    ///
    /// - Parameters:
    ///   - expected: The count to wait for.
    ///   - key: The key.
    /// - Throws: An expectation failure after about 30 seconds.
    static func waitForCount(_ expected: Int, key: String) async throws {
        for _ in 0..<600 {
            if try await count(key) >= expected { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the fault server never counted \(expected) requests under \(key)")
    }

    private struct Counted: Decodable {
        var count: Int
    }

    private static func baseURL(from variable: String) -> URL? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            return nil
        }
        return URL(string: value)
    }

    /// `/flaky`, `/flaky-drop` and `/auth`: how many requests the key had when this one succeeded.
    struct Attempts: Decodable, Sendable {
        var attempts: Int
    }

    /// `/ok`.
    struct OK: Decodable, Sendable {
        var ok: Bool
    }

    /// This process's resident set size in bytes, from `/proc/self/status`; `nil` where there is
    /// no `/proc` (not Linux), and callers then skip their memory checks.
    static func residentMemory() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first
            return kilobytes.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
