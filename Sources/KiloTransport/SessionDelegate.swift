import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of a session that ``URLSessionTransport`` owns: it routes each task's events to
/// the ``SessionTransfer`` that started it.
///
/// It is not a download delegate: downloads use completion handlers (see
/// ``URLSessionTransport``), and only their authentication challenges come here.
///
/// `@unchecked Sendable`: `transfers` is private and only read and written under `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Registration {
        var transfer: SessionTransfer
        var completesThroughDelegate: Bool
        var attempt: Int
    }

    private let lock = NSLock()
    private var registrations: [Int: Registration] = [:]

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
        transfer(for: task)?.request.progress?.reportSent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let registration = registration(for: dataTask) {
            registration.transfer.append(data, attempt: registration.attempt)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        transfer.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
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
        if let registration, registration.completesThroughDelegate {
            registration.transfer.finish(
                body: Data(),
                response: task.response,
                error: error,
                attempt: registration.attempt
            )
        }
    }
}
