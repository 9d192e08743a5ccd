import Foundation
import Testing

/// The fault server (`Service/fault_server.py`) on 127.0.0.1, which `Scripts/test.sh` starts and
/// names in `KILO_FAULT_URL`.
enum FaultServer {
    /// The server's base URL, from `KILO_FAULT_URL`.
    static func baseURL() throws -> URL {
        let string = try #require(ProcessInfo.processInfo.environment["KILO_FAULT_URL"])
        return try #require(URL(string: string))
    }

    /// Whether `KILO_FAULT_URL` is set.
    static var isRunning: Bool {
        ProcessInfo.processInfo.environment["KILO_FAULT_URL"] != nil
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only when the fault server is running: skipped, with the reason, otherwise.
    static var needsFaultServer: Self {
        .enabled(if: FaultServer.isRunning, "needs KILO_FAULT_URL (run Scripts/test.sh)")
    }
}
