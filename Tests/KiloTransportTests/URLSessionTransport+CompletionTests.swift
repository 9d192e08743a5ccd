import Foundation
import KiloTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a ``URLSessionTransport``'s completions run decides where Kilo's callback methods
/// decode: only a queue that finishes requests, off the main thread, may take its time.
@Suite struct URLSessionTransportCompletionTests {
    /// Sessions made once and never invalidated: creating and invalidating sessions per test has
    /// been reported to crash in teardown on Linux.
    private static let ordinarySession = URLSession(configuration: .ephemeral)
    private static let mainQueueSession = URLSession(
        configuration: .ephemeral, delegate: nil, delegateQueue: .main)
    private static let owningTransport = URLSessionTransport(configuration: .ephemeral)
    private static let mainUnderlyingQueueSession: URLSession = {
        let queue = OperationQueue()
        queue.underlyingQueue = .main
        return URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: queue)
    }()

    @Test func yourSessionsDelegateQueueMayTakeItsTimeButNotOnLinux() {
        #if canImport(FoundationNetworking)
            // On Linux the transport asks for completions on the session's work queue instead,
            // which must not (see URLSessionTransport+InlineCompletionTests).
            #expect(!URLSessionTransport(session: Self.ordinarySession).completionMayTakeTime)
        #else
            #expect(URLSessionTransport(session: Self.ordinarySession).completionMayTakeTime)
        #endif
    }

    @Test func theSharedSessionsQueueMayNot() {
        // The whole process shares it. Only its delegate queue is read: nothing is sent.
        #expect(!URLSessionTransport(session: .shared).completionMayTakeTime)
    }

    @Test func aDelegateQueueOnTheMainThreadMayNot() {
        #expect(!URLSessionTransport(session: Self.mainQueueSession).completionMayTakeTime)
        #expect(!URLSessionTransport(session: Self.mainUnderlyingQueueSession).completionMayTakeTime)
    }

    @Test func aSessionOfTheTransportsOwnMayNot() {
        // On Linux its completions run on the work queue that every session shares.
        #expect(!Self.owningTransport.completionMayTakeTime)
    }
}
