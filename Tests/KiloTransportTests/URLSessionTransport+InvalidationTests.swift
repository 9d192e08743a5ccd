import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session invalidated while a request is in flight: the request ends with an error, and the
/// process goes on.
///
/// On Linux, Kilo sends some requests again on a new task of the same session: after a redirect
/// that keeps the method (swift-corelibs-foundation would follow it without the body), and when
/// a reused connection was closed before any response (libcurl would resend it without the
/// body). Making a task in an invalidated session traps ("Session invalidated"), where the
/// session would have let the task it had finish. Each test uses a session of its own, which it
/// invalidates.
@Suite(
    .needs(.fault),
    .timeLimit(.minutes(1))
)
struct URLSessionTransportInvalidationTests {
    private let baseURL: URL

    init() throws {
        baseURL = try LoopbackServer.fault.baseURL()
    }

    /// `session`: a transport on a caller's session; `owned`: one with a session of its own,
    /// whose ``URLSessionTransport/session`` the caller invalidates.
    private static func makeTransport(_ mode: String) -> URLSessionTransport {
        mode == "session"
            ? URLSessionTransport(session: URLSession(configuration: .ephemeral))
            : URLSessionTransport(configuration: .ephemeral)
    }

    /// The server answers the PUT with a 307 after twenty seconds (room for a busy machine); the
    /// session is invalidated before that, with `finishTasksAndInvalidate()`, which lets the task
    /// finish. Kilo cannot send the body on with the redirect: the request fails with `cancelled`
    /// instead of trapping.
    @Test(arguments: ["session", "owned"])
    func aRedirectThatKeepsTheBodyFailsWhenTheSessionWasInvalidatedMeanwhile(mode: String) async throws {
        let transport = Self.makeTransport(mode)
        let key = "invalidated-redirect-\(mode)-\(UUID().uuidString)"
        let url = try #require(
            URL(string: "redirect-to?url=/echo&code=307&delay=20&key=\(key)", relativeTo: baseURL)?.absoluteURL
        )
        let request = TransportRequest(
            method: .put,
            url: url,
            headers: ["Content-Type": "text/plain"],
            body: .data(Data("kept".utf8)),
            timeoutInterval: 40
        )
        let sent = Task { try await transport.send(request) }
        try await waitUntilCounted(key)
        transport.session.finishTasksAndInvalidate()
        let error = await #expect(throws: URLError.self) { try await sent.value }
        #expect(error?.code == .cancelled)
    }

    /// The second POST goes out on the first one's kept-alive connection, which the server
    /// resets a second after the request arrives; the session is invalidated just after the
    /// second request starts, well before that. Kilo cannot send it again on a new task: it
    /// fails (with `cancelled`, or with `networkConnectionLost` when libcurl fails it itself)
    /// instead of trapping. (Without the delay, the reset could come first, and the request be
    /// sent again, and succeed, on a session not yet invalidated.)
    @Test(arguments: ["session", "owned"])
    func aResendFailsWhenTheSessionWasInvalidatedMeanwhile(mode: String) async throws {
        let transport = Self.makeTransport(mode)
        let url = try #require(URL(string: "stale-keep-alive?reset-after=1", relativeTo: baseURL)?.absoluteURL)
        let request = TransportRequest(
            method: .post,
            url: url,
            headers: ["Content-Type": "application/json"],
            body: .data(Data(#"{"a":1}"#.utf8)),
            timeoutInterval: 10
        )
        #expect(try await transport.send(request).statusCode == 200)
        let sent = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(100))
        transport.session.finishTasksAndInvalidate()
        let error = try await #require(throws: URLError.self) { try await sent.value }
        #expect([.cancelled, .networkConnectionLost].contains(error.code))
    }

    /// The first attempt gets a 503 with `Retry-After: 20` (room for a busy machine); the session
    /// is invalidated during the wait. Another attempt would trap: the 503 stands, and the server
    /// saw one request.
    @Test(arguments: ["session", "owned"])
    func aRetryIsNotSentOnASessionInvalidatedDuringTheWait(mode: String) async throws {
        let base = Self.makeTransport(mode)
        let transport = base.retrying(.default)
        let key = "invalidated-retry-\(mode)-\(UUID().uuidString)"
        let url = try #require(
            URL(string: "flaky?key=\(key)&failures=5&retry-after=20", relativeTo: baseURL)?.absoluteURL
        )
        let sent = Task { try await transport.send(TransportRequest(method: .get, url: url, timeoutInterval: 10)) }
        try await waitUntilCounted(key)
        base.session.finishTasksAndInvalidate()
        #expect(try await sent.value.statusCode == 503)
        #expect(try await count(key) == 1)
    }

    /// The interceptor asks for a retry after a 401, but takes its time (a token refresh); the
    /// session is invalidated meanwhile. Another attempt would trap: the 401 stands.
    @Test(arguments: ["session", "owned"])
    func anInterceptorsRetryIsNotSentOnASessionInvalidatedMeanwhile(mode: String) async throws {
        let base = Self.makeTransport(mode)
        let transport = base.intercepted(by: SlowlyRetryingInterceptor())
        let key = "invalidated-intercepted-\(mode)-\(UUID().uuidString)"
        let url = try #require(URL(string: "auth?token=t&key=\(key)", relativeTo: baseURL)?.absoluteURL)
        let sent = Task { try await transport.send(TransportRequest(method: .get, url: url, timeoutInterval: 10)) }
        try await waitUntilCounted(key)
        base.session.finishTasksAndInvalidate()
        #expect(try await sent.value.statusCode == 401)
        #expect(try await count(key) == 1)
    }

    /// Waits until the fault server has received the first request counted under `key`, so that
    /// the session is invalidated only once that request's task exists (a task made in an
    /// invalidated session traps, whatever Kilo does).
    private func waitUntilCounted(_ key: String) async throws {
        let deadline = ContinuousClock.now + .seconds(40)
        while try await count(key) == 0 {
            try #require(ContinuousClock.now < deadline, "the first request never reached the server")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How many requests the fault server has counted under `key`, asked with `URLSession.shared`.
    private func count(_ key: String) async throws -> Int {
        struct Count: Decodable { var count: Int }
        let url = try #require(URL(string: "count?key=\(key)", relativeTo: baseURL)?.absoluteURL)
        let transport = URLSessionTransport(session: .shared)
        let response = try await transport.send(TransportRequest(method: .get, url: url))
        return try JSONDecoder().decode(Count.self, from: response.body).count
    }
}

/// Asks for one retry after any response, twenty seconds later (room for a busy machine).
private struct SlowlyRetryingInterceptor: RequestInterceptor {
    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        request
    }

    func shouldRetry(
        _ request: TransportRequest,
        after outcome: Result<TransportResponse, any Error>,
        attempt: Int
    ) async -> Bool {
        try? await Task.sleep(for: .seconds(20))
        return true
    }
}
