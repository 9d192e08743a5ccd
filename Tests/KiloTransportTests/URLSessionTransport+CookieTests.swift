import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's cookie storage works across requests and redirects, as it does for a session
/// used without Kilo: real requests to httpbin's `/cookies` on 127.0.0.1.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["KILO_HTTPBIN_URL"] != nil,
        "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"
    )
)
struct URLSessionTransportCookieTests {
    /// Sessions made once, as sessions should be, each with a cookie storage of its own (an
    /// ephemeral configuration's); every test sets cookies of its own names.
    private static let session = URLSession(configuration: .ephemeral)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private static let delegate = RedirectFollowingDelegate()
    private static let delegatingSession = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    private static let transportSettingNoCookies = URLSessionTransport(
        configuration: {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpShouldSetCookies = false
            return configuration
        }()
    )

    /// Which session a test's transport uses.
    enum SessionMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case callersSession = "the caller's session"
        case callersSessionWithDelegate = "the caller's session, with a delegate"
        case ownSession = "a session of its own"

        var testDescription: String { rawValue }
    }

    /// How a test receives its response.
    enum Receiving: String, CaseIterable, Sendable {
        case inMemory = "in memory"
        case withProgress = "in memory, with progress"
        case toFile = "to a file"
    }

    private let baseURL: URL

    init() throws {
        let string = try #require(ProcessInfo.processInfo.environment["KILO_HTTPBIN_URL"])
        baseURL = try #require(URL(string: string))
    }

    private func transport(_ mode: SessionMode) -> URLSessionTransport {
        switch mode {
        case .callersSession: URLSessionTransport(session: Self.session)
        case .callersSessionWithDelegate: URLSessionTransport(session: Self.delegatingSession)
        case .ownSession: Self.owningTransport
        }
    }

    /// The cookies httpbin received.
    private struct Cookies: Decodable {
        var cookies: [String: String]
    }

    /// A cookie that a redirect's response sets goes with the request the redirect leads to, as it
    /// does on a session without a delegate (and on Apple platforms): httpbin's `/cookies/set`
    /// sets it and redirects to `/cookies`. Before the fix, Linux's URLSession sent the redirected
    /// request without it, since every task of the transport has a delegate.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases, Receiving.allCases)
    func aCookieSetByARedirectGoesWithTheRedirectedRequest(mode: SessionMode, receiving: Receiving) async throws {
        let name = "kilo\(UUID().uuidString.prefix(8))"
        let url = try #require(URL(string: "cookies/set?\(name)=1", relativeTo: baseURL)?.absoluteURL)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-cookies-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }  // Test clean-up only.
        let request = TransportRequest(
            method: .get,
            url: url,
            responseBodyFile: receiving == .toFile ? file : nil,
            progress: receiving == .withProgress ? ProgressObserver { _ in } : nil
        )
        let response = try await transport(mode).send(request)
        #expect(response.statusCode == 200)
        let body = receiving == .toFile ? try Data(contentsOf: file) : response.body
        #expect(try JSONDecoder().decode(Cookies.self, from: body).cookies[name] == "1")
    }

    /// A configuration that does not set cookies on requests still does not on a redirect.
    @Test(.timeLimit(.minutes(1)))
    func noCookieGoesWithARedirectWhenTheConfigurationSetsNone() async throws {
        let transport = Self.transportSettingNoCookies
        let url = try #require(URL(string: "cookies/set?kilo=1", relativeTo: baseURL)?.absoluteURL)
        let response = try await transport.send(TransportRequest(method: .get, url: url))
        #expect(response.statusCode == 200)
        #expect(try JSONDecoder().decode(Cookies.self, from: response.body).cookies.isEmpty)
    }
}

/// Follows every redirect as it is, as a delegate that only looks at redirects does.
private final class RedirectFollowingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(request)
    }
}
