import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's cookie storage works across requests and redirects, as it does for a session
/// used without Kilo: real requests to httpbin's `/cookies` on 127.0.0.1.
@Suite(
    .needs(.httpbin)
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
        baseURL = try LoopbackServer.httpbin.baseURL()
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
            progress: receiving == .withProgress ? ProgressObserver { _ in } : nil
        )
        let response = try await transport(mode).send(
                request,
                consuming: receiving == .toFile ? .file(file) : .memory()
            )
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

/// The cookies that go with a request are the ones RFC 6265 §5.4 allows, where Linux's
/// URLSession (swift-corelibs-foundation 6.3.1) chooses them by host alone: real requests to
/// httpbin on 127.0.0.1, with cookies put in the session's storage or set by httpbin.
///
/// On a session of Kilo's own every request gets them so. On your session Kilo sets them only on
/// a redirect, so the requests here go through httpbin's `/redirect-to`; the first request, to
/// `/redirect-to` itself, is the platform's to choose for.
@Suite(
    .needs(.httpbin)
)
struct URLSessionTransportCookieMatchingTests {
    private static let session = URLSession(configuration: .ephemeral)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private static let delegatingSession = URLSession(
        configuration: .ephemeral,
        delegate: RedirectFollowingDelegate(),
        delegateQueue: nil
    )

    typealias SessionMode = URLSessionTransportCookieTests.SessionMode

    private let baseURL: URL

    init() throws {
        baseURL = try LoopbackServer.httpbin.baseURL()
    }

    private func transport(_ mode: SessionMode) -> URLSessionTransport {
        switch mode {
        case .callersSession: URLSessionTransport(session: Self.session)
        case .callersSessionWithDelegate: URLSessionTransport(session: Self.delegatingSession)
        case .ownSession: Self.owningTransport
        }
    }

    /// A cookie named uniquely for one test, for 127.0.0.1, put in `mode`'s cookie storage.
    private func storeCookie(_ mode: SessionMode, path: String = "/", secure: Bool = false) throws -> String {
        let name = "kilo\(UUID().uuidString.prefix(8))"
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: "1", .domain: "127.0.0.1", .path: path]
        if secure {
            properties[.secure] = "TRUE"
        }
        let storage = try #require(transport(mode).session.configuration.httpCookieStorage)
        storage.setCookie(try #require(HTTPCookie(properties: properties)))
        return name
    }

    /// The names of the cookies that httpbin's `/anything` at `path` received, through a redirect
    /// on your session, and also directly on a session of Kilo's own.
    private func cookiesReceived(at path: String, _ mode: SessionMode) async throws -> [Set<String>] {
        let target = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var paths = ["redirect-to?url=\(target)"]
        if mode == .ownSession {
            paths.append(String(path.dropFirst()))
        }
        var received: [Set<String>] = []
        for path in paths {
            let url = try #require(URL(string: path, relativeTo: baseURL)?.absoluteURL)
            let response = try await transport(mode).send(TransportRequest(method: .get, url: url))
            #expect(response.statusCode == 200)
            struct Echo: Decodable { var headers: [String: String] }
            let field = try JSONDecoder().decode(Echo.self, from: response.body).headers["Cookie"] ?? ""
            let names = field.split(separator: ";").compactMap { $0.split(separator: "=").first }
            received.append(Set(names.map { $0.trimmingCharacters(in: .whitespaces) }))
        }
        return received
    }

    /// Before the fix, a `Secure` cookie went with a request over plain HTTP.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func aSecureCookieDoesNotGoOverPlainHTTP(mode: SessionMode) async throws {
        let name = try storeCookie(mode, secure: true)
        for received in try await cookiesReceived(at: "/anything/secure", mode) {
            #expect(!received.contains(name))
        }
    }

    /// Before the fix, a cookie for `/anything/<name>` went to `/anything/public` too.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func aCookieGoesOnlyWhereItsPathMatches(mode: SessionMode) async throws {
        let name = try storeCookie(mode, path: "/anything/\(UUID().uuidString)")
        let storage = try #require(transport(mode).session.configuration.httpCookieStorage)
        let path = try #require(storage.cookies?.first { $0.name == name }?.path)
        for received in try await cookiesReceived(at: "/anything/public", mode) {
            #expect(!received.contains(name))
        }
        for received in try await cookiesReceived(at: path + "/inside", mode) {
            #expect(received.contains(name))
        }
    }

    /// A `Cookie` field of the caller's own overrides the stored cookies, as Apple documents;
    /// before the fix, on Linux, a stored cookie replaced it.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func aCookieFieldOfYourOwnOverridesTheStoredCookies(mode: SessionMode) async throws {
        let name = try storeCookie(mode)
        #expect(try await cookiesReceived(at: "/anything/before", mode).allSatisfy { $0.contains(name) })
        let url = try #require(URL(string: "anything/own", relativeTo: baseURL)?.absoluteURL)
        let response = try await transport(mode).send(
            TransportRequest(method: .get, url: url, headers: ["Cookie": "mine=1"])
        )
        struct Echo: Decodable { var headers: [String: String] }
        #expect(try JSONDecoder().decode(Echo.self, from: response.body).headers["Cookie"] == "mine=1")
    }

    /// A server deletes a cookie with `Max-Age=0`; Linux's URLSession stores that cookie without
    /// an expiry date, and, before the fix, went on sending it.
    @Test(.timeLimit(.minutes(1)), arguments: SessionMode.allCases)
    func aCookieDeletedWithMaxAgeZeroIsNotSentAgain(mode: SessionMode) async throws {
        let name = try storeCookie(mode)
        #expect(try await cookiesReceived(at: "/anything/before", mode).allSatisfy { $0.contains(name) })
        let deletion = "\(name)=; Max-Age=0".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let url = try #require(URL(string: "response-headers?Set-Cookie=\(deletion)", relativeTo: baseURL)?.absoluteURL)
        #expect(try await transport(mode).send(TransportRequest(method: .get, url: url)).statusCode == 200)
        for received in try await cookiesReceived(at: "/anything/after", mode) {
            #expect(!received.contains(name))
        }
    }
}

/// A `Cookie` field that your session's delegate sets on a redirect goes with it when no stored
/// cookie does, as it did before Kilo chose the cookies of redirects itself.
@Suite(
    .needs(.httpbin)
)
struct URLSessionTransportDelegateCookieTests {
    @Test(.timeLimit(.minutes(1)))
    func aCookieYourDelegateSetsOnARedirectIsKept() async throws {
        let baseURL = try LoopbackServer.httpbin.baseURL()
        let session = URLSession(configuration: .ephemeral, delegate: CookieSettingDelegate(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let url = try #require(URL(string: "redirect-to?url=%2Fanything", relativeTo: baseURL)?.absoluteURL)
        let response = try await URLSessionTransport(session: session).send(TransportRequest(method: .get, url: url))
        struct Echo: Decodable { var headers: [String: String] }
        #expect(try JSONDecoder().decode(Echo.self, from: response.body).headers["Cookie"] == "fromDelegate=1")
    }
}

/// Sets a `Cookie` field of its own on every redirect.
private final class CookieSettingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        var request = request
        request.setValue("fromDelegate=1", forHTTPHeaderField: "Cookie")
        completionHandler(request)
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
