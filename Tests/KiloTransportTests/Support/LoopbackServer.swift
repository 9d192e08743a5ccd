import Foundation
import Testing

/// A server on 127.0.0.1 that `Scripts/test.sh` starts, and names in an environment variable.
enum LoopbackServer: String {
    /// httpbin, in `KILO_HTTPBIN_URL`.
    case httpbin = "KILO_HTTPBIN_URL"
    /// Kilo's fault server (`Service/fault_server.py`), in `KILO_FAULT_URL`.
    case fault = "KILO_FAULT_URL"

    /// The server's base URL, from its environment variable.
    func baseURL() throws -> URL {
        let string = try #require(ProcessInfo.processInfo.environment[rawValue])
        return try #require(URL(string: string))
    }

    /// Whether the server's environment variable is set.
    var isRunning: Bool {
        ProcessInfo.processInfo.environment[rawValue] != nil
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only when `server` is running: skipped, with the reason, otherwise.
    static func needs(_ server: LoopbackServer) -> Self {
        .enabled(if: server.isRunning, "needs \(server.rawValue) (run Scripts/test.sh)")
    }
}
