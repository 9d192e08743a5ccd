import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of a session that ``URLSessionTransport`` owns: it routes each task's events to
/// the ``SessionTransfer`` that started it. On Linux a task with a completion handler has its
/// transfer as its own task delegate instead, and is not registered here.
///
/// It is not a download delegate. On Linux a download to a file is a data task whose chunks come
/// here and are written to the file at once, on the session's work queue; elsewhere downloads use
/// completion handlers, and only their authentication challenges come here (see
/// ``URLSessionTransport``).
///
/// When the session delivers its events inline, on its own work queue (see
/// ``ImmediateOperationQueue``), the delegate moves each event to a serial queue of its own,
/// in order, before it touches the caller's progress handler or answers the session; only the
/// request for a new body stream is answered at once.
///
/// `@unchecked Sendable`: `registrations` is private and only read and written under `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Registration {
        var transfer: SessionTransfer
        var completesThroughDelegate: Bool
        var attempt: Int
    }

    private let lock = Lock()
    private var registrations: [Int: Registration] = [:]
    /// Where events run when the session delivers them on its work queue; `nil` when the
    /// session already delivers them on a queue of their own.
    private let events: DispatchQueue?

    /// The cookie storage whose cookies go on a redirect of a task without a transfer, or `nil`
    /// when the session's configuration sets none.
    private let cookieStorage: HTTPCookieStorage?
    #if canImport(FoundationNetworking)
        /// The jar that takes in the cookies a redirect of a task without a transfer sets, if any.
        private let cookieJar: CookieJar?
    #endif

    /// Creates a delegate.
    ///
    /// - Parameters:
    ///   - movesEventsOffSessionQueue: Whether the session delivers its events on its own work
    ///     queue, which events must leave before they do any real work.
    ///   - cookieStorage: The cookie storage whose cookies the transport sets on requests itself,
    ///     if any.
    ///   - cookieJar: The jar that stores the cookies responses set, if any (Linux only).
    #if canImport(FoundationNetworking)
        init(movesEventsOffSessionQueue: Bool, cookieStorage: HTTPCookieStorage? = nil, cookieJar: CookieJar? = nil) {
            events = movesEventsOffSessionQueue ? DispatchQueue(label: "org.kilo.session-events") : nil
            self.cookieStorage = cookieStorage
            self.cookieJar = cookieJar
        }
    #else
        init(movesEventsOffSessionQueue: Bool, cookieStorage: HTTPCookieStorage? = nil) {
            events = movesEventsOffSessionQueue ? DispatchQueue(label: "org.kilo.session-events") : nil
            self.cookieStorage = cookieStorage
        }
    #endif

    /// Runs `work` where events may take their time: at once if the session's delegate queue is
    /// an ordinary one, otherwise on this delegate's serial queue, after the events before it.
    func deliver(_ work: @escaping @Sendable () -> Void) {
        if let events {
            events.async(execute: work)
        } else {
            work()
        }
    }

    /// Routes `task`'s events to `transfer`; call it before the task is resumed.
    ///
    /// - Parameters:
    ///   - transfer: The call that started the task.
    ///   - task: The task.
    ///   - completesThroughDelegate: Whether the task ends here; `false` for a task with a
    ///     completion handler, which ends there.
    func register(_ transfer: SessionTransfer, for task: URLSessionTask, completesThroughDelegate: Bool) {
        lock.withLock {
            registrations[task.taskIdentifier] = Registration(
                transfer: transfer,
                completesThroughDelegate: completesThroughDelegate,
                attempt: transfer.currentAttempt
            )
        }
    }

    /// Stops routing the events of the task with this identifier.
    func unregister(_ taskIdentifier: Int) {
        _ = lock.withLock { registrations.removeValue(forKey: taskIdentifier) }
    }

    private func transfer(for task: URLSessionTask) -> SessionTransfer? {
        lock.withLock { registrations[task.taskIdentifier]?.transfer }
    }

    private func registration(for task: URLSessionTask) -> Registration? {
        lock.withLock { registrations[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let progress = transfer(for: task)?.request.progress else { return }
        deliver { progress.reportSent(totalBytesSent, of: totalBytesExpectedToSend) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let registration = registration(for: dataTask) else { return }
        let transfer = registration.transfer
        guard transfer.request.responseBodyFile != nil else {
            deliver { transfer.append(data, attempt: registration.attempt) }
            return
        }
        // A download: written here and now, so that no chunk waits in memory; only the progress
        // report, which runs the caller's handler, moves on, one at a time.
        if transfer.write(data, attempt: registration.attempt) {
            deliver { transfer.reportBytesWritten() }
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let transfer = transfer(for: task)
        deliver {
            guard let transfer else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            transfer.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        }
    }

    /// Follows a redirect; on Linux as the task's transfer decides (see
    /// ``SessionTransfer/urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)``):
    /// without the fields that must not follow it, with the session's cookies for the new URL,
    /// and with the body, on a new task, when the redirect keeps the method. A task without a
    /// transfer (one that a resend replaced) gets the same fields. Answered at once: it is quick,
    /// and the session does not wait for it on its work queue.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            guard let transfer = transfer(for: task) else {
                // A task cancelled (or ended) must get no answer, on which the session would trap (see
                // SessionTransfer.answeringRedirect(of:with:)); its cancellation ends it.
                cookieJar?.receive(response)  // Cookie hook: the redirect's cookies, within the policy
                guard task.state == .running else { return }
                let request = request.strippedForRedirect(from: response.url)
                completionHandler(cookieStorage.map { request.settingCookies(from: $0, keeping: nil) } ?? request)
                return
            }
            transfer.urlSession(
                session,
                task: task,
                willPerformHTTPRedirection: response,
                newRequest: request,
                completionHandler: completionHandler
            )
        #else
            completionHandler(request)
        #endif
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(nil)
            return
        }
        transfer.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let registration = lock.withLock { registrations.removeValue(forKey: task.taskIdentifier) }
        guard let registration, registration.completesThroughDelegate else { return }
        let response = task.response
        deliver {
            registration.transfer.finish(body: Data(), response: response, error: error, attempt: registration.attempt)
        }
    }
}
