import Foundation

#if canImport(FoundationNetworking)
    // Linux: every event of a session is handed to another thread.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a session adds each event to its
    // delegate queue from its work queue, and an ordinary queue wakes another thread to run it,
    // about a tenth of a small request's CPU time.
    // Tests: every URLSessionTransport suite runs on it; Benchmarks/ measures what it saves.
    // Remove when corelibs calls a task's delegate without a hand-off, or when the hand-off costs
    // nothing a benchmark row can see.
    /// A session's delegate queue that runs each operation at once, on the thread that adds it.
    ///
    /// On Linux, a session adds every event to its delegate queue from its own work queue; an
    /// ordinary queue then wakes another thread to run it. That hand-off, one per request, costs
    /// about a tenth of a small request's CPU time, and `URLSession.data(for:)` avoids it the
    /// same way (swift-corelibs-foundation calls its completion inline). The operation then runs
    /// on the session's work queue, which every session in the process shares, so whatever it
    /// does must be quick (a copy there holds up every request) and must not call back into the
    /// session synchronously (`cancel()`, making or resuming a task): those wait for the work
    /// queue, and would trap. ``URLSessionTransport`` gives this queue to the sessions whose
    /// delegate is Kilo's router (the session it owns, and the companion of yours); your own
    /// session's delegate is asked on your session's queue. A transfer therefore makes, resumes
    /// and cancels tasks on another queue; a request's progress handler, though, is called
    /// here, inline.
    ///
    /// Only blocks run at once: that is how the session adds its events. Anything added as an
    /// `Operation` runs as on any serial queue.
    ///
    /// `@unchecked Sendable`, as `OperationQueue` itself is; this subclass adds no state.
    final class ImmediateOperationQueue: OperationQueue, @unchecked Sendable {
        override init() {
            super.init()
            maxConcurrentOperationCount = 1
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    }
#endif
