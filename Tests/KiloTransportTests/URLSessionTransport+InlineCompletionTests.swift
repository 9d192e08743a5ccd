import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
    /// On Linux, a request on your session finishes on the session's work queue, as
    /// `URLSession.data(for:)` does, not on its delegate queue: checked against the fault server,
    /// on 127.0.0.1.
    @Suite(
        .needs(.fault),
        .timeLimit(.minutes(1))
    )
    struct URLSessionTransportInlineCompletionTests {
        /// Sessions made once and never invalidated: creating and invalidating sessions per test
        /// has been reported to crash in teardown on Linux.
        private static let suspendedQueue: OperationQueue = {
            let queue = OperationQueue()
            queue.isSuspended = true
            return queue
        }()
        private static let sessionWithASuspendedQueue = URLSession(
            configuration: .ephemeral,
            delegate: nil,
            delegateQueue: suspendedQueue
        )
        private let baseURL: URL

        init() throws {
            baseURL = try LoopbackServer.fault.baseURL()
        }

        /// The delegate queue never runs: the request ends all the same. Without the inline
        /// completion it would wait for the queue, which the watchdog lets go after 5 seconds.
        @Test(arguments: [false, true])
        func aRequestFinishesWithoutTheDelegateQueue(withBody: Bool) async throws {
            let request = TransportRequest(
                method: withBody ? .post : .get,
                url: try #require(URL(string: withBody ? "echo" : "ok", relativeTo: baseURL)),
                body: withBody ? .data(Data("order=1".utf8)) : nil
            )
            let watchdog = Task {
                try await Task.sleep(for: .seconds(5))
                Self.suspendedQueue.isSuspended = false
                return "the request waited for the delegate queue"
            }
            let response = try await URLSessionTransport(session: Self.sessionWithASuspendedQueue).send(request)
            watchdog.cancel()
            #expect(response.statusCode == 200)
            if case .success(let complaint) = await watchdog.result {
                Issue.record(Comment(rawValue: complaint))
            }
        }
    }
#endif
