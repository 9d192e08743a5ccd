/// Where one request of ``URLSessionTransport`` stands: which task carries it, whether its
/// response has arrived, whether it was cancelled. A value with named transitions, so that every
/// decision about a task's events is made in one place, under one lock, and tested without a
/// network.
///
/// Generic over the task type only so that tests can drive it with plain objects.
struct TransferState<Task: AnyObject> {
    /// How far the request has come.
    enum Phase: Equatable {
        /// Sent, or about to be; no response yet.
        case waitingForResponse
        /// The status and headers have been delivered; the body is arriving.
        case receivingBody
        /// Over: the body ended, or the request failed.
        case finished
    }

    /// What to do about a task that is to be replaced by a new one (see ``replace(_:forRedirect:)``).
    enum Replacement: Equatable {
        /// Make the new task.
        case proceed
        /// The resends are spent (``maximumResends``): fail the request. Never for a redirect,
        /// which `RedirectPolicy.Chain` counts.
        case fail
        /// The task is not current, or the request is over or cancelled: do nothing.
        case ignore
    }

    /// How many times a request may be sent again on a new task after its connection was lost
    /// before any response (libcurl itself tries 5 times).
    static var maximumResends: Int { 3 }

    private(set) var phase = Phase.waitingForResponse
    /// The task that carries the request now; `nil` before the first, between two, and after
    /// the end. Events of any other task are ignored.
    private(set) var task: Task?
    private(set) var isCancelled = false
    /// Whether the current task has been resumed: a task is cancelled only once its `resume()`
    /// has returned, never while it runs (see ``didResume()``).
    private(set) var isResumed = false
    /// Whether the current task waits for the answer to a redirect, which a cancellation must
    /// then wait for (see ``cancel()``).
    private(set) var isRedirectPending = false
    private(set) var resends = 0

    /// Whether `task` is the one that carries the request.
    func isCurrent(_ task: Task) -> Bool {
        task === self.task
    }

    /// Makes `task` the current one.
    ///
    /// - Returns: Whether to resume it; `false` when cancellation came first, and the task must be
    ///   cancelled without being resumed, so that nothing is sent.
    mutating func begin(_ task: Task) -> Bool {
        self.task = task
        isResumed = false
        return !isCancelled
    }

    /// The current task's `resume()` has returned.
    ///
    /// - Returns: The task to cancel now, when cancellation came while it was being resumed.
    mutating func didResume() -> Task? {
        isResumed = true
        return isCancelled && !isRedirectPending && phase != .finished ? task : nil
    }

    /// Marks the request cancelled.
    ///
    /// - Returns: The task to cancel now: `nil` before there is one (``begin(_:)`` then says not
    ///   to resume it), while it is being resumed (``didResume()`` returns it), while a redirect
    ///   waits for its answer (the answer cancels it, see ``endRedirect()``), after the end, and
    ///   when the request was cancelled already.
    mutating func cancel() -> Task? {
        let wasCancelled = isCancelled
        isCancelled = true
        return wasCancelled || !isResumed || isRedirectPending || phase == .finished ? nil : task
    }

    /// The response of `task` arrived.
    ///
    /// - Returns: Whether to deliver it: only the current task's first response.
    mutating func receiveResponse(of task: Task) -> Bool {
        guard isCurrent(task), phase == .waitingForResponse else { return false }
        phase = .receivingBody
        return true
    }

    /// Whether a chunk of `task`'s body is the request's.
    func acceptsBody(of task: Task) -> Bool {
        isCurrent(task) && phase == .receivingBody
    }

    /// `task` completed.
    ///
    /// - Returns: The phase the request was in, for what ends it, or `nil` to ignore the event (a
    ///   task that was replaced, or a request already over).
    mutating func complete(_ task: Task) -> Phase? {
        guard isCurrent(task), phase != .finished else { return nil }
        defer {
            phase = .finished
            self.task = nil
            isRedirectPending = false
        }
        return phase
    }

    /// Ends the request without its task, as when no task could be made.
    ///
    /// - Returns: Whether it was still going.
    mutating func finish() -> Bool {
        guard phase != .finished else { return false }
        phase = .finished
        task = nil
        return true
    }

    /// Gives up `old` for a new task that sends the request again: after a lost connection
    /// (counted against ``maximumResends``) or to follow a redirect with the body (counted, with
    /// every other redirect, by the transfer's `RedirectPolicy.Chain`). Only before a response
    /// has arrived.
    mutating func replace(_ old: Task, forRedirect: Bool) -> Replacement {
        guard isCurrent(old), phase == .waitingForResponse, !isCancelled else { return .ignore }
        task = nil
        isRedirectPending = false
        if !forRedirect {
            guard resends < Self.maximumResends else { return .fail }
            resends += 1
        }
        return .proceed
    }

    /// How to treat a task's question about a redirect.
    enum RedirectQuestion: Equatable {
        /// Answer it; a cancellation meanwhile waits for the answer (see ``endRedirect()``).
        case answer
        /// A task that no longer carries the request: answer it, and nothing more.
        case answerUntracked
        /// The request is being cancelled: give no answer, and its cancellation ends the task.
        case withhold
    }

    /// `task` asks how to follow a redirect.
    mutating func beginRedirect(of task: Task) -> RedirectQuestion {
        guard isCurrent(task) else { return .answerUntracked }
        guard !isCancelled, phase == .waitingForResponse else { return .withhold }
        isRedirectPending = true
        return .answer
    }

    /// The redirect has been answered.
    ///
    /// - Returns: Whether a cancellation came meanwhile, so that the task must be cancelled now.
    mutating func endRedirect() -> Bool {
        guard isRedirectPending else { return false }
        isRedirectPending = false
        return isCancelled && phase != .finished
    }
}
