import Foundation
import Kilo
import Testing

/// Kilo's server-sent events server (`Service/sse_server.py`, sse-starlette under uvicorn), which
/// `Scripts/servers.sh` starts.
///
/// A suite that needs it is enabled only when its variable is set:
/// `.enabled(if: SSEServer.url != nil, "needs KILO_SSE_URL (run Scripts/test.sh)")`.
enum SSEServer {
    /// The server's base URL, ending in `/`.
    static let url: URL? = {
        guard let value = ProcessInfo.processInfo.environment["KILO_SSE_URL"], !value.isEmpty else { return nil }
        return URL(string: value)
    }()

    /// What the server saw of the `/events` streams with one tag.
    struct Outcomes: Decodable, Equatable {
        /// Streams that ended because the client closed the connection.
        var disconnected: Int
        /// Streams that sent all their events.
        var completed: Int
        /// Streams still sending.
        var active: Int
    }

    /// Makes a proxy for the server with the transport under test (see ``Servers/makeProxy(baseURL:)``).
    ///
    /// - Throws: An expectation failure when `KILO_SSE_URL` is not set.
    static func proxy() throws -> WebServiceProxy {
        Servers.makeProxy(baseURL: try #require(url, "KILO_SSE_URL is not set"))
    }

    /// A tag no other test uses, so that the server's counts for it are this test's alone.
    static func makeTag(_ label: String) -> String {
        "\(label)-\(UUID().uuidString.prefix(8))"
    }

    /// What the server has seen of the streams tagged `tag` so far.
    static func outcomes(_ tag: String) async throws -> Outcomes {
        try await proxy().invoke(.get, path: "closed", arguments: ["tag": tag])
    }

    /// Polls the server until `condition` holds for the streams tagged `tag`, for up to 30
    /// seconds (the server notices a disconnect within moments; a loaded machine may take longer).
    ///
    /// - Returns: The outcomes that satisfied the condition, or the last ones seen.
    @discardableResult
    static func waitForOutcomes(_ tag: String, until condition: (Outcomes) -> Bool) async throws -> Outcomes {
        var outcomes = try await outcomes(tag)
        for _ in 0..<300 where !condition(outcomes) {
            try await Task.sleep(nanoseconds: 100_000_000)
            outcomes = try await self.outcomes(tag)
        }
        return outcomes
    }
}
