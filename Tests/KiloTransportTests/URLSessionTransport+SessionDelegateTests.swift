import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session of yours keeps its delegate: it answers authentication challenges as it would
/// without Kilo, against httpbin's `/basic-auth/{user}/{password}` on 127.0.0.1.
@Suite(
    .needs(.httpbin)
)
struct URLSessionTransportSessionDelegateTests {
    /// One session for the suite, never invalidated (see URLSessionTransportTests).
    private static let delegate = ChallengeAnsweringDelegate()
    private static let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)

    private let baseURL: URL

    init() throws {
        baseURL = try LoopbackServer.httpbin.baseURL()
    }

    /// Sends a GET of `/basic-auth/{user}/{password}` as a user of its own whose name starts with
    /// `prefix`, which tells the delegate how to answer (a name per test keeps the counts apart
    /// across runs).
    ///
    /// - Returns: The response, and how many challenges the delegate was asked to answer.
    private func send(as prefix: String) async throws -> (response: TransportResponse, challenges: Int) {
        let user = "\(prefix)-\(UUID().uuidString)"
        let url = try #require(URL(string: "basic-auth/\(user)/secret", relativeTo: baseURL)?.absoluteURL)
        let transport = URLSessionTransport(session: Self.session)
        let request = TransportRequest(method: .get, url: url, timeoutInterval: 5)
        // A request that hangs on its challenge fails the test instead of the suite.
        let task = Task { try await transport.send(request) }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(50))
            task.cancel()
        }
        defer { watchdog.cancel() }
        let response = try await task.value
        return (response, Self.delegate.challenges(for: user))
    }

    @Test(.timeLimit(.minutes(1)))
    func yourDelegatesCredentialsAreUsed() async throws {
        let outcome = try await send(as: ChallengeAnsweringDelegate.credentialUser)
        #expect(outcome.response.statusCode == 200)
        #expect(outcome.challenges == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aChallengeYourDelegateDeclinesReturnsTheResponse() async throws {
        let outcome = try await send(as: ChallengeAnsweringDelegate.decliningUser)
        #expect(outcome.response.statusCode == 401)
        #expect(outcome.response.headers["www-authenticate"] == #"Basic realm="Fake Realm""#)
        #expect(outcome.challenges == 1)
    }

    /// Default handling would wait forever on Linux: the transport declines it instead.
    @Test(.timeLimit(.minutes(1)))
    func aChallengeLeftToDefaultHandlingReturnsTheResponse() async throws {
        let outcome = try await send(as: ChallengeAnsweringDelegate.defaultUser)
        #expect(outcome.response.statusCode == 401)
        #expect(outcome.challenges == 1)
    }

    /// Linux's URLSession traps on `.useCredential` without a credential: the transport declines
    /// the challenge instead, and returns the response.
    @Test(.timeLimit(.minutes(1)))
    func useCredentialWithoutACredentialReturnsTheResponse() async throws {
        let outcome = try await send(as: ChallengeAnsweringDelegate.nilCredentialUser)
        #expect(outcome.response.statusCode == 401)
        #expect(outcome.challenges == 1)
    }

    /// The session sends the request again, on the same task, with your delegate's credentials:
    /// a file body goes again whole (on Linux the body's stream starts over; see
    /// `FileBodyStream`). The fault server's `/basic-auth` takes a `PUT`, which httpbin's does not.
    @Test(.timeLimit(.minutes(1)), .needs(.fault))
    func yourDelegatesCredentialsSendAFileBodyAgainWhole() async throws {
        let user = "\(ChallengeAnsweringDelegate.credentialUser)-\(UUID().uuidString)"
        let url = try #require(URL(string: "basic-auth/\(user)/secret", relativeTo: try LoopbackServer.fault.baseURL()))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        try Data(repeating: 0x61, count: 3 << 20).write(to: file)
        let transport = URLSessionTransport(session: Self.session)
        let request = TransportRequest(method: .put, url: url.absoluteURL, body: .file(file), timeoutInterval: 20)
        let response = try await transport.send(request)
        #expect(response.statusCode == 200)
        #expect(try JSONDecoder().decode(BasicAuthEcho.self, from: response.body).received == 3 << 20)
        #expect(Self.delegate.challenges(for: user) == 1)
    }

    /// After a redirect to another origin (httpbin on `localhost`, from the fault server on
    /// 127.0.0.1), Linux's URLSession would send the credentials your delegate gives for that
    /// origin's challenge with the first request, to the origin that redirected, and then again
    /// and again: the transport declines the challenge, and returns its response.
    @Test(.timeLimit(.minutes(1)))
    func yourDelegatesCredentialsForAnotherOriginAreNotSentToTheFirst() async throws {
        let faultURL = try LoopbackServer.fault.baseURL()
        let user = "\(ChallengeAnsweringDelegate.credentialUser)-\(UUID().uuidString)"
        let port = try #require(baseURL.port)
        let target = "http://localhost:\(port)/basic-auth/\(user)/secret"
        let key = "foreign-challenge-\(UUID().uuidString)"
        let query = "url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&key=\(key)"
        let url = try #require(URL(string: "redirect-to?\(query)", relativeTo: faultURL)?.absoluteURL)
        let transport = URLSessionTransport(session: Self.session)
        let task = Task { try await transport.send(TransportRequest(method: .get, url: url, timeoutInterval: 5)) }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(50))
            task.cancel()
        }
        defer { watchdog.cancel() }
        let response = try await task.value
        #expect(response.statusCode == 401)
        #expect(Self.delegate.challenges(for: user) == 1)
        let countURL = try #require(URL(string: "count?key=\(key)", relativeTo: faultURL)?.absoluteURL)
        let counted = try await transport.send(TransportRequest(method: .get, url: countURL))
        let count = try JSONDecoder().decode(FaultCount.self, from: counted.body)
        #expect(count.count == 1)
        #expect(count.authorized == 0)
    }

    /// Your delegate still decides about redirects, as without Kilo, and is handed a request to
    /// another origin without the credentials meant for the first.
    @Test(.timeLimit(.minutes(1)))
    func yourDelegateDecidesRedirectsAndSeesNoForeignCredentials() async throws {
        let port = try #require(baseURL.port)
        let transport = URLSessionTransport(session: Self.session)
        for refused in [false, true] {
            let marker = UUID().uuidString
            let target = "http://localhost:\(port)/headers?marker=\(marker)"
            let query = "url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            let url = try #require(
                URL(string: "redirect-to?\(query)\(refused ? "&refuse=1" : "")", relativeTo: baseURL)?.absoluteURL
            )
            let response = try await transport.send(
                TransportRequest(method: .get, url: url, headers: ["Authorization": "Bearer secret"])
            )
            #expect(response.statusCode == (refused ? 302 : 200))
            #expect(Self.delegate.redirectAuthorization(marker: marker) == .some(nil))
        }
    }
}

/// What the fault server's `/basic-auth` says of a request it let in.
private struct BasicAuthEcho: Decodable {
    var received: Int
}

/// What the fault server's `/count` says: how many requests with a key reached it, and how many
/// of them had an `Authorization` field.
private struct FaultCount: Decodable {
    var count: Int
    var authorized: Int
}

/// Answers a challenge by the prefix of the user name in the challenged URL's path: with that
/// user's credentials, by declining, by default handling, or with `.useCredential` and no
/// credential; and counts the challenges per user.
private final class ChallengeAnsweringDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    static let credentialUser = "kilo-with-credentials"
    static let decliningUser = "kilo-declined"
    static let defaultUser = "kilo-default"
    static let nilCredentialUser = "kilo-nil-credential"

    private let counts = Locked<[String: Int]>([:])
    /// The `Authorization` header of each redirected request the delegate was asked about, by
    /// the `marker` in its query.
    private let redirects = Locked<[String: String?]>([:])

    func redirectAuthorization(marker: String) -> String?? {
        redirects.withLock { $0[marker] }
    }

    /// Refuses a redirect when the first request's query has `refuse=1`, after noting what the
    /// new request carries.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let query = URLComponents(url: request.url ?? URL(fileURLWithPath: "/"), resolvingAgainstBaseURL: false)
        if let marker = query?.queryItems?.first(where: { $0.name == "marker" })?.value {
            redirects.withLock { $0[marker] = .some(request.value(forHTTPHeaderField: "Authorization")) }
        }
        let refuse = task.originalRequest?.url?.query?.contains("refuse=1") == true
        completionHandler(refuse ? nil : request)
    }

    func challenges(for user: String) -> Int {
        counts.withLock { $0[user, default: 0] }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // The path is /basic-auth/{user}/{password}, after any redirect.
        let components = (challenge.failureResponse?.url ?? task.originalRequest?.url)?.pathComponents ?? []
        let user = components.dropLast().last ?? ""
        let password = components.last ?? ""
        counts.withLock { $0[user, default: 0] += 1 }
        if user.hasPrefix(Self.credentialUser), challenge.previousFailureCount == 0 {
            completionHandler(.useCredential, URLCredential(user: user, password: password, persistence: .none))
        } else if user.hasPrefix(Self.defaultUser) {
            completionHandler(.performDefaultHandling, nil)
        } else if user.hasPrefix(Self.nilCredentialUser) {
            completionHandler(.useCredential, nil)
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}
