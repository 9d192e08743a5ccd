import AsyncHTTPClient
import Foundation
import Kilo
import KiloAsyncHTTPClient

/// The local servers that the root's `Scripts/servers.sh` starts, found through the environment.
///
/// A suite that needs one is enabled only when its variable is set, as in Kilo's integration
/// suite; `Scripts/test-transports.sh` sets them all.
enum LiveServers {
    /// httpbin, which echoes what it received as JSON.
    static let httpbin = baseURL(from: "KILO_HTTPBIN_URL")
    /// Kilo's sample service (`Service/sample_service.py`).
    static let sample = baseURL(from: "KILO_SAMPLE_URL")
    /// Kilo's fault server (`Service/fault_server.py`), plain HTTP.
    static let fault = baseURL(from: "KILO_FAULT_URL")
    /// The fault server's TLS listener, whose self-signed certificate no client should trust.
    static let faultTLS = baseURL(from: "KILO_FAULT_TLS_URL")

    /// One client for the whole test process, configured as users are told to; never shut down.
    static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: AsyncHTTPClientTransport.recommendedConfiguration
    )

    /// The transport under test, on ``client``.
    static let transport = AsyncHTTPClientTransport(client: client)

    /// A URL on a server, failing the test when its variable is not set.
    static func url(_ base: URL?, _ path: String) throws -> URL {
        guard let base, let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw MissingServer()
        }
        return url
    }

    /// A key no other test uses, so that the fault server's count for it is one test's alone.
    static func makeKey(_ label: String) -> String {
        "\(label)-\(UUID().uuidString.prefix(8))"
    }

    /// How many requests with `key` in their query have reached the fault server.
    static func faultCount(_ key: String) async throws -> Int {
        struct Counted: Decodable { var count: Int }
        let response = try await transport.send(
            TransportRequest(method: .get, url: try url(fault, "count?key=\(key)"))
        )
        return try JSONDecoder().decode(Counted.self, from: response.body).count
    }

    /// How the fault server's last recorded body under a key went (its `/transfer`).
    struct Transfer: Decodable {
        /// Whether the server has stopped writing it.
        var done: Bool
        /// Whether the client closed the connection before the server had written it all.
        var closed: Bool?
        /// How many bytes of body the server wrote.
        var sent: Int?
    }

    /// How the fault server's last recorded body under `key` went, once the server has stopped
    /// writing it (or as it stands after about 10 seconds).
    static func faultTransfer(_ key: String) async throws -> Transfer {
        let request = TransportRequest(method: .get, url: try url(fault, "transfer?key=\(key)"))
        var transfer = Transfer(done: false)
        for _ in 0..<200 {
            transfer = try JSONDecoder().decode(Transfer.self, from: try await transport.send(request).body)
            if transfer.done { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return transfer
    }

    /// This process's resident set size in bytes, or `nil` where there is no `/proc`.
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

    /// A TCP port on 127.0.0.1 that nothing listens on.
    static func closedPort() throws -> Int {
        let socket = try ServerSocket()
        return socket.port  // closed again when `socket` goes away
    }

    struct MissingServer: Error {}

    private static func baseURL(from variable: String) -> URL? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            return nil
        }
        return URL(string: value)
    }
}

/// A bound, unlistened TCP socket on 127.0.0.1, for finding a port that refuses connections.
private final class ServerSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}

/// A folder of its own in the temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `data` to a file named `name` in the folder and returns its URL.
    func write(_ data: Data, named name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    /// The names of the files in the folder, sorted.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A value that tasks and progress handlers can share.
final class Protected<Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only read and written under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Deterministic bytes that do not repeat with any short period.
func fixtureBytes(count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return Data(bytes)
}
