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
        .needsFaultServer,
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
        private static let sessionWithoutACache: URLSession = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil  // a cached response's lookup has a crash of its own
            return URLSession(configuration: configuration)
        }()
        private let baseURL: URL

        init() throws {
            baseURL = try FaultServer.baseURL()
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

        /// Cancellation racing the response: `URLSession.data(for:)` deadlocks here on Swift 6.3.1
        /// (swift-corelibs-foundation #5412), because it cancels the task while the Swift task's
        /// status is locked, and the work queue resumes it at the same moment. The transport
        /// cancels from another thread, so every request ends, with its response or cancelled.
        /// Where `cancellationRacingCompletionNeverHangs` runs many requests at once against
        /// httpbin, this one runs one at a time against the fault server, each cancel a step
        /// later into its round trip. With the transport cancelling on the spot, it hung in three
        /// runs of three: a regression here hangs the run rather than failing it.
        @Test func requestsCancelledAsTheirResponsesArriveAllEnd() async throws {
            let transport = URLSessionTransport(session: Self.sessionWithoutACache)
            let request = TransportRequest(method: .get, url: try #require(URL(string: "ok", relativeTo: baseURL)))
            var outcomes: [String: Int] = [:]
            for index in 0..<2000 {
                let task = Task { try await transport.send(request) }
                // Spread over a loopback round trip, so that some cancels meet the response.
                try await Task.sleep(for: .microseconds(25 * (index % 20)))
                task.cancel()
                do {
                    #expect(try await task.value.statusCode == 200)
                    outcomes["ok", default: 0] += 1
                } catch let error as URLError where error.code == .cancelled {
                    outcomes["cancelled", default: 0] += 1
                }
            }
            #expect(outcomes["cancelled", default: 0] > 0, "the race was run: \(outcomes)")
        }
    }
#endif
