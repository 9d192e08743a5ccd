import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a cancelled request sends: checked against the fault server's count of the requests it
/// received, on 127.0.0.1.
@Suite(
    .needs(.fault),
    .timeLimit(.minutes(1))
)
struct URLSessionTransportCancellationTests {
    private static let session = URLSession(configuration: .ephemeral)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private static let sessionWithoutACache: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil  // a cached response's lookup has a crash of its own
        return URLSession(configuration: configuration)
    }()
    private let baseURL: URL

    init() throws {
        baseURL = try LoopbackServer.fault.baseURL()
    }

    private func transport(ownSession: Bool) -> URLSessionTransport {
        ownSession ? Self.owningTransport : URLSessionTransport(session: Self.session)
    }

    /// How many requests with `key` in their query the fault server has received.
    private func count(_ key: String) async throws -> Int {
        struct Counted: Decodable { var count: Int }
        let url = try #require(URL(string: "count?key=\(key)", relativeTo: baseURL))
        let response = try await URLSessionTransport(session: Self.session).send(
            TransportRequest(method: .get, url: url)
        )
        return try JSONDecoder().decode(Counted.self, from: response.body).count
    }

    /// A request whose task is cancelled before `send` is called fails with `URLError.cancelled`
    /// and never reaches the server: a cancelled POST must not be processed. Before the fix, the
    /// transfer resumed its `URLSessionTask` and only then cancelled it, so some of these
    /// requests reached the server, and some even came back with the server's response. With a
    /// deadline, the exchange runs in a task of its own, begun in the caller's thread: it must
    /// begin cancelled.
    @Test(arguments: [false, true], [false, true])
    func aRequestCancelledBeforeItIsSentNeverReachesTheServer(ownSession: Bool, withProgress: Bool) async throws {
        for deadline in [nil, 60] as [TimeInterval?] {
            try await sendCancelledRequests(ownSession: ownSession, withProgress: withProgress, deadline: deadline)
        }
    }

    private func sendCancelledRequests(ownSession: Bool, withProgress: Bool, deadline: TimeInterval?) async throws {
        let key = "cancelled-before-send-\(UUID().uuidString.prefix(8))"
        let request = TransportRequest(
            method: .post,
            url: try #require(URL(string: "echo?key=\(key)", relativeTo: baseURL)),
            body: .data(Data("order=1".utf8)),
            progress: withProgress ? ProgressObserver { _ in } : nil
        )
        let transport = self.transport(ownSession: ownSession)
        for _ in 0..<20 {
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.send(request, consuming: .memory(deadline: deadline))
            }
            let error = await #expect(throws: URLError.self) { try await task.value }
            #expect(error?.code == .cancelled)
        }
        // Every request has ended: one that was sent has been received by now.
        #expect(try await count(key) == 0, "deadline \(String(describing: deadline))")
    }

    /// A request cancelled as its redirect arrives, at each step of a loopback round trip, on
    /// your session (without a URL cache, whose lookup has a crash of its own) and on a session of
    /// the transport's own, with a redirect that the session follows (302 GET) and one that the
    /// transport follows on a new task with the body (307 PUT). Before the fix, Linux's
    /// URLSession got the redirect's answer after the cancellation had ended its wait, and ended
    /// the process (`Received callback for HTTP redirection, but we're not waiting for it`) in
    /// every run of each case; now every request ends, cancelled or with its response.
    @Test(arguments: [false, true], [302, 307])
    func requestsCancelledAsTheirRedirectsArriveAllEnd(ownSession: Bool, code: Int) async throws {
        let transport = ownSession ? Self.owningTransport : URLSessionTransport(session: Self.sessionWithoutACache)
        let request =
            code == 302
            ? TransportRequest(method: .get, url: try #require(URL(string: "redirect-to?url=/ok", relativeTo: baseURL)))
            : TransportRequest(
                method: .put,
                url: try #require(URL(string: "redirect-to?url=/echo&code=307", relativeTo: baseURL)),
                headers: ["Content-Type": "text/plain"],
                body: .data(Data("kept".utf8))
            )
        let outcomes = try await Self.cancel(request, on: transport, times: 1000, steppingBy: 50, over: 40)
        #expect(outcomes["cancelled", default: 0] > 0, "the race was run: \(outcomes)")
    }

    /// Cancellation racing the response: `URLSession.data(for:)` deadlocks here on Swift 6.3.1
    /// (swift-corelibs-foundation #5412), because it cancels the task while the Swift task's
    /// status is locked, and the session's work queue, where the transport's completions run on
    /// Linux, resumes it at the same moment. The transport cancels from another thread, so every
    /// request ends, with its response or cancelled. Where `cancellationRacingCompletionNeverHangs`
    /// runs many requests at once against httpbin, this one runs one at a time against the fault
    /// server, each cancel a step later into its round trip. With the transport cancelling on the
    /// spot, it hung in three runs of three: a regression here hangs the run rather than failing it.
    @Test func requestsCancelledAsTheirResponsesArriveAllEnd() async throws {
        let transport = URLSessionTransport(session: Self.sessionWithoutACache)
        let request = TransportRequest(method: .get, url: try #require(URL(string: "ok", relativeTo: baseURL)))
        let outcomes = try await Self.cancel(request, on: transport, times: 2000, steppingBy: 25, over: 20)
        #expect(outcomes["cancelled", default: 0] > 0, "the race was run: \(outcomes)")
    }

    /// Sends `request` `times` times, one at a time, cancelling each after a delay that grows by
    /// `step` microseconds from one request to the next and starts again at 0 after `steps`
    /// requests, so that the cancels fall at every point of a loopback round trip.
    ///
    /// - Returns: How many requests ended `"ok"` (status 200) and how many `"cancelled"`; any
    ///   other outcome fails the test.
    private static func cancel(
        _ request: TransportRequest,
        on transport: URLSessionTransport,
        times: Int,
        steppingBy step: Int,
        over steps: Int
    ) async throws -> [String: Int] {
        var outcomes: [String: Int] = [:]
        for index in 0..<times {
            let task = Task { try await transport.send(request) }
            try await Task.sleep(for: .microseconds(step * (index % steps)))
            task.cancel()
            do {
                #expect(try await task.value.statusCode == 200)
                outcomes["ok", default: 0] += 1
            } catch let error as URLError where error.code == .cancelled {
                outcomes["cancelled", default: 0] += 1
            }
        }
        return outcomes
    }

    /// A request cancelled while your session's delegate decides about its redirect ends with
    /// `URLError.cancelled`, and the process goes on once the delegate answers, just after. Before the fix,
    /// the answer reached Linux's URLSession after the cancellation, which ended the process.
    @Test(arguments: [302, 307])
    func aRequestCancelledWhileYourDelegateDecidesARedirectIsCancelled(code: Int) async throws {
        let delegate = HeldRedirectDelegate()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let request = TransportRequest(
            method: .put,
            url: try #require(URL(string: "redirect-to?url=/echo&code=\(code)", relativeTo: baseURL)),
            headers: ["Content-Type": "text/plain"],
            body: .data(Data("kept".utf8))
        )
        let transport = URLSessionTransport(session: session)
        let task = Task { try await transport.send(request) }
        await delegate.wasAsked.wait()
        task.cancel()
        delegate.mayAnswer.send()  // only now, however slowly this test runs
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        await delegate.hasAnswered.wait()
        try await Task.sleep(for: .milliseconds(200))  // the session takes the answer on its work queue
    }

    #if canImport(FoundationNetworking)
        /// A request cancelled just after it started, while Linux's URLSession was still looking
        /// up its cached response on a background queue, crashed the process (`Trying to access a
        /// behaviour for a task that in not in the registry`) in every run of this loop. A session
        /// of Kilo's own answers the lookup at once, so every request ends, cancelled or not.
        @Test func requestsCancelledAsTheyStartOnAnOwnedSessionWithACacheAllEnd() async throws {
            let configuration = URLSessionConfiguration.ephemeral
            #expect(configuration.urlCache != nil, "the crash needs a URL cache")
            let transport = URLSessionTransport(configuration: configuration)
            let request = TransportRequest(method: .get, url: try #require(URL(string: "ok", relativeTo: baseURL)))
            var cancelled = 0
            for index in 0..<600 {
                let task = Task { try await transport.send(request) }
                if index.isMultiple(of: 2) {
                    await Task.yield()
                } else {
                    try await Task.sleep(for: .microseconds(50))
                }
                task.cancel()
                do {
                    #expect(try await task.value.statusCode == 200)
                } catch let error as URLError where error.code == .cancelled {
                    cancelled += 1
                }
            }
            #expect(cancelled > 0, "the race was run: some requests were cancelled")
        }

        /// The cache of a session of Kilo's own keeps its responses in the configuration's cache,
        /// and a fresh response found there is used without asking the server.
        @Test func anOwnedSessionKeepsItsCachedResponsesInYourCacheAndUsesThem() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kilo-cache-\(UUID().uuidString)",
                isDirectory: true
            )
            defer { try? FileManager.default.removeItem(at: directory) }  // Test clean-up only.
            let yours = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: directory.path)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = yours
            let transport = URLSessionTransport(configuration: configuration)
            let key = "cached-\(UUID().uuidString.prefix(8))"
            let url = try #require(URL(string: "ok?key=\(key)", relativeTo: baseURL)?.absoluteURL)
            let response = try #require(
                HTTPURLResponse(
                    url: url,
                    statusCode: 200,
                    httpVersion: "HTTP/1.1",
                    headerFields: [
                        "Content-Type": "application/json", "Cache-Control": "max-age=3600",
                        "Date": Self.httpDate(Date()),
                    ]
                )
            )
            let cache = try #require(transport.session.configuration.urlCache)
            cache.storeCachedResponse(
                CachedURLResponse(response: response, data: Data(#"{"cached":true}"#.utf8)),
                for: URLRequest(url: url)
            )
            #expect(yours.cachedResponse(for: URLRequest(url: url)) != nil)
            let received = try await transport.send(TransportRequest(method: .get, url: url))
            #expect(String(decoding: received.body, as: UTF8.self) == #"{"cached":true}"#)
            #expect(try await count(key) == 0)
        }

        private static func httpDate(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: date)
        }
    #endif
}

/// A session delegate that follows each redirect only once its test lets it, and says when it is
/// asked and when it has answered.
private final class HeldRedirectDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let wasAsked = Signal()
    let mayAnswer = Signal()
    let hasAnswered = Signal()

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        wasAsked.send()
        Task {
            await mayAnswer.wait()
            completionHandler(request)
            hasAnswered.send()
        }
    }
}

/// Something that happens once, which a test can wait for.
private final class Signal: @unchecked Sendable {
    /// Only under `lock`.
    private var hasHappened = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let lock = NSLock()

    func send() {
        let waiting = lock.withLock {
            hasHappened = true
            defer { self.waiting = [] }
            return self.waiting
        }
        waiting.forEach { $0.resume() }
    }

    /// Returns once ``send()`` has been called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = lock.withLock {
                if !hasHappened {
                    waiting.append(continuation)
                }
                return hasHappened
            }
            if resumeNow {
                continuation.resume()
            }
        }
    }
}
