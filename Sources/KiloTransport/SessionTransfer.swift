import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one ``URLSessionTransport/send(_:)`` call: its task, the body received so
/// far, and the continuation that returns the response, exactly once.
///
/// The cancellation handler may run before the task exists, at the same time, or after; the
/// session's delegate queue reports the rest.
///
/// `@unchecked Sendable`: every mutable property is private and only read and written under
/// `lock`, except `continuation` and `onFinish`, which are set before the task starts (and
/// `continuation` is then only taken under `lock`).
final class SessionTransfer: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let request: TransportRequest
    var continuation: CheckedContinuation<TransportResponse, any Error>?
    /// Runs once when the transfer finishes, however it finishes.
    var onFinish: (@Sendable () -> Void)?

    private let lock = NSLock()
    private var task: URLSessionTask?
    private var isCancelled = false
    private var isFinished = false
    private var body = Data()
    private var challengedResponse: HTTPURLResponse?
    private var downloadError: (any Error)?

    init(_ request: TransportRequest) {
        self.request = request
    }

    /// Resumes `task`, or cancels it at once if cancellation came first.
    func start(_ task: URLSessionTask) {
        let cancelled = lock.withLock {
            self.task = task
            return isCancelled
        }
        request.progress?.reportSent(0, of: request.bodySize)
        task.resume()
        if cancelled {
            Self.cancelAsynchronously(task)
        }
    }

    /// Cancels the task if it has started, or marks it to be cancelled when it starts.
    func cancel() {
        let task = lock.withLock {
            isCancelled = true
            return self.task
        }
        if let task {
            Self.cancelAsynchronously(task)
        }
    }

    /// Keeps body bytes that a data or upload task received.
    func append(_ data: Data) {
        let (count, expected) = lock.withLock {
            body.append(data)
            return (Int64(body.count), task?.response?.expectedContentLength)
        }
        request.progress?.reportReceived(count, of: expected)
    }

    /// Moves a download task's file to the response body file. It must happen before the
    /// session's callback returns, when the session deletes the file.
    func keepDownload(at location: URL) {
        guard let destination = request.responseBodyFile else { return }
        do {
            let files = FileManager.default
            if files.fileExists(atPath: destination.path) {
                try files.removeItem(at: destination)
            }
            try files.moveItem(at: location, to: destination)
        } catch {
            lock.withLock { downloadError = error }
        }
    }

    /// Returns the response, or the error, to the caller; only the first call counts.
    func finish(body received: Data, response: URLResponse?, error: (any Error)?) {
        let outcome:
            (
                continuation: CheckedContinuation<TransportResponse, any Error>?,
                result: Result<TransportResponse, any Error>
            )? =
                lock.withLock {
                    guard !isFinished else { return nil }
                    isFinished = true
                    body.append(received)
                    let result = makeResult(response: response, error: error)
                    // Let go of everything: on Linux a task keeps its delegate (this transfer)
                    // forever, so the transfer must not keep the task, the body or the caller.
                    body = Data()
                    task = nil
                    let continuation = self.continuation
                    self.continuation = nil
                    return (continuation, result)
                }
        guard let outcome else { return }
        onFinish?()
        if case .success(let response) = outcome.result {
            reportCompletion(of: response)
        }
        outcome.continuation?.resume(with: outcome.result)
    }

    /// Called with `lock` held.
    private func makeResult(response: URLResponse?, error: (any Error)?) -> Result<TransportResponse, any Error> {
        if let error {
            // A declined challenge ends in "cancelled": return the challenge's own response,
            // unless the caller really did cancel.
            if let challengedResponse, !isCancelled, (error as? URLError)?.code == .cancelled {
                return .success(TransportResponse(challengedResponse, body: Data()))
            }
            return .failure((error as? URLError)?.normalized() ?? error)
        }
        if let downloadError {
            return .failure(downloadError)
        }
        guard let response = response as? HTTPURLResponse else {
            return .failure(URLError(.badServerResponse))
        }
        if let file = request.responseBodyFile, case .file = request.body {
            // An upload whose response goes to a file: the body arrived in memory.
            do {
                try body.write(to: file)
            } catch {
                return .failure(error)
            }
            return .success(TransportResponse(response, body: Data()))
        }
        return .success(TransportResponse(response, body: body))
    }

    private func reportCompletion(of response: TransportResponse) {
        guard let progress = request.progress else { return }
        let sent = request.bodySize ?? 0
        progress.reportSent(sent, of: sent)
        var size = Int64(response.body.count)
        if let file = request.responseBodyFile {
            size = FileManager.default.sizeOfItem(at: file) ?? progress.current.bytesReceived
        }
        progress.reportReceived(size, of: size)
    }

    /// Declines an authentication challenge, keeping the response that carried it.
    ///
    /// Linux's URLSession would otherwise wait forever for credentials; declining ends the task
    /// with "cancelled", which ``finish(body:response:error:)`` turns back into the response.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            if let response = challenge.failureResponse as? HTTPURLResponse {
                lock.withLock { challengedResponse = response }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// Cancels off the calling thread: on Linux, `cancel()` racing the task's completion can
    /// deadlock when called from a thread that the session is waiting on.
    private static func cancelAsynchronously(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
