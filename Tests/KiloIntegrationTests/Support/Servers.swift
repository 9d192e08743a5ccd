import Foundation
import Kilo
import Testing

#if KILO_ASYNC_HTTP_CLIENT
    import KiloAsyncHTTPClient
#endif

/// The local servers that `Scripts/servers.sh` starts, found through the environment.
///
/// Each base URL ends in `/`. A suite that needs a server is enabled only when its variable is set:
/// `.enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)")`.
enum Servers {
    /// httpbin, which echoes what it received as JSON.
    static let httpbin = baseURL(from: "KILO_HTTPBIN_URL")

    /// Kilo's sample service (`Service/sample_service.py`).
    static let sample = baseURL(from: "KILO_SAMPLE_URL")

    /// The one session every integration test shares: ephemeral, so nothing is cached on disk.
    static let session = URLSession(configuration: configuration)

    /// An ephemeral configuration with room for every test's connections to a server at once.
    /// With the default six per host, a request queues in the session behind other tests'
    /// long transfers, and its deadline or timeout can pass before it reaches the server, which
    /// tests that count what the server saw cannot tell from a request never sent.
    static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return configuration
    }

    /// Makes a proxy for httpbin with the transport under test (see ``makeProxy(baseURL:)``).
    ///
    /// - Throws: An expectation failure when `KILO_HTTPBIN_URL` is not set.
    static func httpbinProxy() throws -> WebServiceProxy {
        makeProxy(baseURL: try #require(httpbin, "KILO_HTTPBIN_URL is not set"))
    }

    /// Makes a proxy for the sample service with the transport under test (see ``makeProxy(baseURL:)``).
    ///
    /// - Throws: An expectation failure when `KILO_SAMPLE_URL` is not set.
    static func sampleProxy() throws -> WebServiceProxy {
        makeProxy(baseURL: try #require(sample, "KILO_SAMPLE_URL is not set"))
    }

    /// The transport of every proxy when `KILO_TEST_SESSION` is `owned`: one with a session of
    /// its own, which on Linux delivers completions on the session's work queue.
    static let owningTransport = URLSessionTransport(configuration: configuration)

    /// Makes a proxy with the transport under test: a real URL session (the shared ``session``,
    /// or, when the environment sets `KILO_TEST_SESSION=owned`, a session of the transport's
    /// own), or, when `Transports/KiloAsyncHTTPClient` builds this suite
    /// (`KILO_ASYNC_HTTP_CLIENT`), an `AsyncHTTPClientTransport` on that package's test client.
    ///
    /// - Parameter baseURL: The proxy's base URL.
    /// - Returns: The proxy.
    static func makeProxy(baseURL: URL) -> WebServiceProxy {
        #if KILO_ASYNC_HTTP_CLIENT
            WebServiceProxy(baseURL: baseURL, transport: AsyncHTTPClientTransport(client: TestHTTPClient.shared))
        #else
            if ProcessInfo.processInfo.environment["KILO_TEST_SESSION"] == "owned" {
                WebServiceProxy(baseURL: baseURL, transport: owningTransport)
            } else {
                WebServiceProxy(session: session, baseURL: baseURL)
            }
        #endif
    }

    private static func baseURL(from variable: String) -> URL? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            return nil
        }
        return URL(string: value)
    }
}
