import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one request of ``URLSessionTransport``: its task, the body received so far,
/// and the completion that receives the outcome, exactly once.
///
/// The cancellation handler may run before the task exists, at the same time, or after; the
/// session's delegate queue reports the rest.
///
/// `@unchecked Sendable`: every mutable property is private and only read and written under
/// `lock`, except `completion`, `onFinish` and `resender`, which ``prepare(completion:resender:)``
/// and ``whenFinished(_:)`` set before the task starts (`completion` and `resender` are then
/// only used under `lock`).
final class SessionTransfer: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let request: TransportRequest
    /// Receives the outcome; replaced by one that ignores it once it has, to let go of the
    /// caller. ``finish(body:response:error:attempt:)`` takes it under `lock` exactly once, which
    /// is what lets ``URLSessionTransport/send(_:)`` resume an unsafe continuation with it.
    private var completion: @Sendable (Result<TransportResponse, any Error>) -> Void = SessionTransfer.ignoreOutcome
    /// Runs once when the transfer finishes, however it finishes.
    private var onFinish: (@Sendable () -> Void)?
    /// The transport and the request that make a new task for this transfer, to replace one
    /// whose body libcurl asked to rewind; see ``urlSession(_:task:needNewBodyStream:)``.
    /// Dropped when the transfer finishes. (Kept as values, not as a closure over them: a
    /// closure would cost every request an allocation for a resend that few ever need.)
    private var resender: (transport: URLSessionTransport, request: URLRequest)?

    /// How many times one call may send its request again after its connection was lost before
    /// any response (libcurl itself tries 5 times).
    static let maximumResends = 3

    /// How many redirects that keep the method, and so the body, one call follows on new tasks
    /// (see ``follow(_:from:completionHandler:)``): as many as URLSession follows on one task.
    static let maximumRedirects = 20

    private let lock = Lock()
    private var task: URLSessionTask?
    private var isCancelled = false
    private var isFinished = false
    private var body = Data()
    /// The response body file that a download writes as its chunks arrive (see
    /// ``write(_:attempt:)``), open from the first chunk until the transfer finishes.
    private var bodyFile: FileHandle?
    /// The number of bytes written to `bodyFile` by the current attempt.
    private var bodyFileCount: Int64 = 0
    /// Whether a ``reportBytesWritten()`` is scheduled and has not run yet.
    private var isReportOfBytesWrittenWaiting = false
    /// Whether this transfer writes the response body file itself, chunk by chunk (see
    /// ``writesBodyFileItself()``).
    private var writesBodyFile = false
    private var challengedResponse: HTTPURLResponse?
    private var downloadError: (any Error)?
    /// The number of the current task: 0 for the first, one more for each resend or redirect
    /// followed on a new task. Tasks that were replaced may still report; they are ignored.
    private var attempt = 0
    /// The number of redirects followed on new tasks, to send the body again.
    private var redirectsFollowed = 0
    /// Whether the current task waits for the answer to a redirect (see
    /// ``answeringRedirect(of:with:)``): ``cancel()`` then waits for the answer. A redirect is
    /// pending only while the transfer was not cancelled when it came, so `isCancelled` during
    /// it means that ``cancel()`` came meanwhile.
    private var isRedirectPending = false

    init(_ request: TransportRequest) {
        self.request = request
    }

    /// Sets what receives the outcome, and what sends the request again; call it before
    /// ``start(_:)``.
    ///
    /// - Parameters:
    ///   - completion: Receives the response or the error, exactly once.
    ///   - resender: The transport and the `URLRequest` that make a task to replace one whose
    ///     body cannot be rewound.
    func prepare(
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void,
        resender: (transport: URLSessionTransport, request: URLRequest)
    ) {
        self.completion = completion
        self.resender = resender
    }

    /// Sets work to run once when the transfer finishes, however it finishes; call it before
    /// ``start(_:)``.
    func whenFinished(_ action: @escaping @Sendable () -> Void) {
        onFinish = action
    }

    /// Resumes `task`, or, if cancellation came first, cancels it without resuming it: a task
    /// cancelled before it is resumed ends with `URLError.cancelled` and sends nothing, where one
    /// resumed and then cancelled may already have reached the server (and even come back with
    /// its response).
    func start(_ task: URLSessionTask) {
        let cancelled = lock.withLock {
            self.task = task
            return isCancelled
        }
        if cancelled {
            Self.cancelAsynchronously(task)
            return
        }
        request.progress?.reportSent(0, of: request.bodySize)
        task.resume()
    }

    /// Cancels the task if it has started, or marks it to be cancelled when it starts, or, while
    /// it waits for the answer to a redirect, once that answer is given (see
    /// ``answeringRedirect(of:with:)``).
    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            isCancelled = true
            return isRedirectPending ? nil : self.task  // the answer's turn to cancel it
        }
        if let task {
            Self.cancelAsynchronously(task)
        }
    }

    /// The number of the current task, for the callbacks of a task being made now.
    var currentAttempt: Int {
        lock.withLock { attempt }
    }

    /// Keeps body bytes that a data or upload task received.
    func append(_ data: Data, attempt: Int) {
        let progress: (count: Int64, expected: Int64?)? = lock.withLock {
            guard attempt == self.attempt else { return nil }
            body.append(data)
            return (Int64(body.count), Self.expectedBodySize(of: task?.response))
        }
        if let progress {
            request.progress?.reportReceived(progress.count, of: progress.expected)
        }
    }

    /// Marks the transfer as one whose task hands it the body chunk by chunk, for
    /// ``write(_:attempt:)``: an empty body then still leaves an empty file, replacing any; call
    /// it before ``start(_:)``.
    func writesBodyFileItself() {
        lock.withLock { writesBodyFile = true }
    }

    /// Writes body bytes that a download's data task received to the response body file, at
    /// once: the file is created (or emptied) at the current attempt's first chunk.
    ///
    /// On a failure to write, the error is kept and the task cancelled: the transfer then fails
    /// with that error.
    ///
    /// - Returns: Whether to schedule ``reportBytesWritten()``: `true` when the request has a
    ///   progress observer and no report is already waiting to run, so that a slow progress
    ///   handler gets fewer reports instead of a queue of them.
    func write(_ data: Data, attempt: Int) -> Bool {
        guard let file = request.responseBodyFile else { return false }
        let outcome: Result<Bool, any Error>? = lock.withLock {
            guard attempt == self.attempt, !isFinished, downloadError == nil else { return nil }
            do {
                let handle: FileHandle
                if let bodyFile {
                    handle = bodyFile
                } else {
                    handle = try Self.createEmptyFile(at: file)
                    bodyFile = handle
                    bodyFileCount = 0
                }
                try handle.write(contentsOf: data)
                bodyFileCount += Int64(data.count)
                guard request.progress != nil, !isReportOfBytesWrittenWaiting else { return .success(false) }
                isReportOfBytesWrittenWaiting = true
                return .success(true)
            } catch {
                downloadError = error
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let scheduleReport):
            return scheduleReport
        case .failure:
            cancel()
            return false
        case nil:
            return false
        }
    }

    /// Reports the bytes that ``write(_:attempt:)`` has written so far to the progress observer.
    func reportBytesWritten() {
        let written: (count: Int64, expected: Int64?) = lock.withLock {
            isReportOfBytesWrittenWaiting = false
            return (bodyFileCount, Self.expectedBodySize(of: task?.response))
        }
        request.progress?.reportReceived(written.count, of: written.expected)
    }

    /// The size of the body that the transfer receives, as the response announces it: its
    /// `Content-Length`, unless the body has a content coding (`gzip`, `deflate`, `br`…). The
    /// session decodes such a body, and its `Content-Length` counts the coded bytes, not the
    /// decoded ones the transfer counts, which would pass it long before the end (a report of all
    /// of the body at its first chunk): its size is unknown until the end.
    private static func expectedBodySize(of response: URLResponse?) -> Int64? {
        guard let response else { return nil }
        let coding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard coding == nil || coding == "" || coding == "identity" else { return nil }
        return response.expectedContentLength
    }

    /// Creates an empty file at `url`, replacing any, and opens it for writing.
    ///
    /// - Throws: The file system's error, with its cause (a missing directory, no permission).
    private static func createEmptyFile(at url: URL) throws -> FileHandle {
        try Data().write(to: url)
        return try FileHandle(forWritingTo: url)
    }

    /// Closes the response body file that ``write(_:attempt:)`` opened; after a failure, removes
    /// it too. Called with `lock` held.
    ///
    /// - Returns: Whether the body went to the file.
    private func closeBodyFile(failed: Bool) -> Bool {
        guard let bodyFile else { return false }
        self.bodyFile = nil
        do {
            try bodyFile.close()
        } catch {
            downloadError = downloadError ?? error  // the file may lack its last bytes
        }
        if failed || downloadError != nil, let file = request.responseBodyFile {
            try? FileManager.default.removeItem(at: file)  // a partial body; the error is reported
        }
        return true
    }

    /// Moves a download task's file to the response body file. It must happen before the
    /// session's callback returns, when the session deletes the file, unless the file was
    /// parked first (``parkDownload(at:)``).
    func keepDownload(at location: URL) {
        guard let destination = request.responseBodyFile else { return }
        let files = FileManager.default
        do {
            if files.fileExists(atPath: destination.path) {
                try files.removeItem(at: destination)
            }
            try files.moveItem(at: location, to: destination)
        } catch {
            lock.withLock { downloadError = error }
            try? files.removeItem(at: location)  // a parked file would stay; the error is kept above
        }
    }

    /// Renames a download task's file beside itself, under a name of Kilo's, so that it outlives
    /// the session's callback: instant, even on the session's work queue, where moving it to the
    /// response body file (perhaps a copy to another file system) would hold up every session.
    ///
    /// - Returns: The parked file, or `nil` if it could not be renamed; the error is then kept.
    func parkDownload(at location: URL) -> URL? {
        let parked = location.deletingLastPathComponent()
            .appendingPathComponent("kilo-download-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.moveItem(at: location, to: parked)
            return parked
        } catch {
            lock.withLock { downloadError = error }
            return nil
        }
    }

    /// Returns the response, or the error, to the caller; only the first call from the current
    /// task counts.
    func finish(body received: Data, response: URLResponse?, error: (any Error)?, attempt: Int) {
        #if canImport(FoundationNetworking)
            // Cookie hook: the response's cookies are stored before the caller can send another
            // request, and off the thread, which may be the session's work queue that every session
            // shares: a persistent storage rewrites its file for each cookie.
            if let jar = cookieJar(for: response), let response = response as? HTTPURLResponse {
                DispatchQueue.global().async {
                    jar.receive(response)
                    self.finishNow(body: received, response: response, error: error, attempt: attempt)
                }
                return
            }
        #endif
        finishNow(body: received, response: response, error: error, attempt: attempt)
    }

    /// Returns the response, or the error, to the caller, at once; see
    /// ``finish(body:response:error:attempt:)``.
    private func finishNow(body received: Data, response: URLResponse?, error: (any Error)?, attempt: Int) {
        var completion = Self.ignoreOutcome
        let result: Result<TransportResponse, any Error>? = lock.withLock {
            guard !isFinished, attempt == self.attempt else { return nil }
            isFinished = true
            if body.isEmpty {
                body = received  // a completion handler's body: keep it, do not copy it
            } else {
                body.append(received)
            }
            let result = makeResult(response: response, error: error)
            // Let go of everything: on Linux a task keeps its delegate (this transfer) forever,
            // so the transfer must not keep the task, the body or the caller.
            body = Data()
            task = nil
            resender = nil
            completion = self.completion
            self.completion = Self.ignoreOutcome
            return result
        }
        guard let result else { return }
        onFinish?()
        if let progress = request.progress, case .success(let response) = result {
            reportCompletion(of: response, to: progress)
        }
        completion(result)
    }

    /// The completion of a transfer that has finished.
    private static let ignoreOutcome: @Sendable (Result<TransportResponse, any Error>) -> Void = { _ in }

    /// Called with `lock` held.
    private func makeResult(response: URLResponse?, error: (any Error)?) -> Result<TransportResponse, any Error> {
        let wroteBodyFile = closeBodyFile(failed: error != nil)
        if let downloadError {
            return .failure(downloadError)  // the first thing that went wrong: a cancellation may follow it
        }
        if let error {
            // A declined challenge ends in "cancelled": return the challenge's own response,
            // unless the caller really did cancel.
            if let challengedResponse, !isCancelled, (error as? URLError)?.code == .cancelled {
                return .success(TransportResponse(challengedResponse, body: Data()))
            }
            return .failure((error as? URLError)?.normalized() ?? error)
        }
        guard let response = response as? HTTPURLResponse else {
            return .failure(URLError(.badServerResponse))
        }
        if wroteBodyFile {
            return .success(TransportResponse(response, body: Data()))
        }
        if writesBodyFile, let file = request.responseBodyFile {
            // No chunk came (a 204, an empty body, a HEAD): the file is still the body, empty.
            do {
                try Self.createEmptyFile(at: file).close()
            } catch {
                return .failure(error)
            }
            return .success(TransportResponse(response, body: Data()))
        }
        if let file = request.responseBodyFile, case .file = request.body {
            // An upload whose response goes to a file, through a completion handler (on your
            // session, or off Linux): the body arrived in memory.
            do {
                try body.write(to: file)
            } catch {
                return .failure(error)
            }
            return .success(TransportResponse(response, body: Data()))
        }
        return .success(TransportResponse(response, body: body))
    }

    /// Reports the whole body sent and the whole response received.
    private func reportCompletion(of response: TransportResponse, to progress: ProgressObserver) {
        let sent = request.bodySize ?? 0
        progress.reportSent(sent, of: sent)
        var size = Int64(response.body.count)
        if let file = request.responseBodyFile {
            size = FileManager.default.sizeOfItem(at: file) ?? progress.current.bytesReceived
        }
        progress.reportReceived(size, of: size)
    }

    /// Answers an authentication challenge: your session's delegate first, if it has one, as it
    /// would without Kilo; then, if no one supplies credentials, declines it, keeping the response
    /// that carried it.
    ///
    /// On Linux the transfer is the task's delegate (see ``URLSessionTransport``), which takes
    /// challenges from the session's delegate, so it passes them on. Linux's URLSession would wait
    /// forever for credentials under default handling; declining ends the task with "cancelled",
    /// which ``finish(body:response:error:attempt:)`` turns back into the response. An answer of
    /// your delegate's that Linux's URLSession cannot take safely is declined too (see
    /// ``passesOn(_:_:to:of:)``).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            if let response = challenge.failureResponse as? HTTPURLResponse {
                lock.withLock { challengedResponse = response }
                receiveCookies(of: response)  // Cookie hook: the response may be all the caller gets
            }
            guard let yours = Self.callersDelegate(of: session) else {
                Self.decline(completionHandler)
                return
            }
            yours.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
                if Self.passesOn(disposition, credential, to: challenge, of: task) {
                    completionHandler(disposition, credential)
                } else {
                    Self.decline(completionHandler)
                }
            }
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// Follows a redirect without the fields that must not follow it (the credentials meant for
    /// the origin it leaves, a body's fields on a `GET`; see
    /// `URLRequest.strippedForRedirect(from:)`), then asks your session's delegate, if it
    /// has one, as it would be asked without Kilo, and follows the request it decides on (see
    /// ``follow(_:from:completionHandler:)``), with the session's cookies for its URL (see
    /// `settingCookies(on:)`).
    ///
    /// On Linux the transfer is the task's delegate (see ``URLSessionTransport``), so the session
    /// asks it, on the session's delegate queue; a delegate of your own then sees the request
    /// without those fields.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            receiveCookies(of: response)  // Cookie hook: before the redirected request chooses its cookies
            guard let completionHandler = answeringRedirect(of: task, with: completionHandler) else { return }
            let request = request.strippedForRedirect(from: response.url)
            guard let yours = Self.callersDelegate(of: session) else {
                follow(settingCookies(on: request), from: task, completionHandler: completionHandler)
                return
            }
            yours.urlSession(
                session,
                task: task,
                willPerformHTTPRedirection: response,
                newRequest: request
            ) { decided in
                // A `Cookie` that your delegate set on the request counts as the caller's own.
                let cookie = decided?.value(forHTTPHeaderField: "Cookie")
                let yourCookie = cookie != request.value(forHTTPHeaderField: "Cookie") ? cookie : nil
                let redirected = decided.map { self.settingCookies(on: $0, keeping: yourCookie) }
                self.follow(redirected, from: task, completionHandler: completionHandler)
            }
        #else
            completionHandler(request)
        #endif
    }

    #if canImport(FoundationNetworking)
        /// The completion handler to answer `task`'s redirect with, or `nil` when the task is being
        /// cancelled and must get no answer.
        ///
        /// swift-corelibs-foundation (6.3.1) traps ("Received callback for HTTP redirection, but
        /// we're not waiting for it") when a redirect is answered after its task was cancelled: the
        /// cancellation ends the wait, and the answer then finds none. So a task being cancelled
        /// gets no answer, and its cancellation ends it with `URLError.cancelled`; a ``cancel()``
        /// that comes while the redirect waits for its answer (your session's delegate may take
        /// its time) cancels the task in place of the answer. A task that something else
        /// cancels (`invalidateAndCancel()`) is known by its state: on a session the transport
        /// owns, which asks about redirects on its work queue, where a cancellation starts, that
        /// is exact; on your session it is checked just before the answer.
        private func answeringRedirect(
            of task: URLSessionTask,
            with completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) -> (@Sendable (URLRequest?) -> Void)? {
            guard task.state == .running else { return nil }
            let isCurrent: Bool? = lock.withLock {
                guard task === self.task else { return false }
                guard !isCancelled else { return nil }  // its cancellation is on its way
                isRedirectPending = true
                return true
            }
            guard let isCurrent else { return nil }
            return { [self] redirected in
                let cancelsInstead = isCurrent && lock.withLock { isCancelled }
                if !cancelsInstead, task.state == .running {
                    // The session takes the answer onto its work queue here, ahead of any
                    // cancellation that starts after it.
                    completionHandler(redirected)
                }
                guard isCurrent else { return }
                let cancelsNow = lock.withLock {
                    isRedirectPending = false
                    return isCancelled
                }
                if cancelsNow {
                    Self.cancelAsynchronously(task)
                }
            }
        }

        /// Takes in the cookies that `response` sets, through the transport's ``CookieJar``: stores
        /// them within its policy on a session the transport owns, or prunes what your session stored.
        /// Nothing happens for a response without `Set-Cookie`, or once the transfer has finished.
        private func receiveCookies(of response: URLResponse?) {
            guard let jar = cookieJar(for: response), let response = response as? HTTPURLResponse else { return }
            jar.receive(response)
        }

        /// The transport's ``CookieJar``, when `response` sets cookies, there is one, and the transfer
        /// has not finished.
        private func cookieJar(for response: URLResponse?) -> CookieJar? {
            guard let response = response as? HTTPURLResponse, response.value(forHTTPHeaderField: "Set-Cookie") != nil
            else { return nil }
            return lock.withLock { isFinished ? nil : resender?.transport.cookieJar }
        }

        /// `redirected` with the `Cookie` field that the session's cookie storage gives its URL
        /// (see `URLRequest.settingCookies(from:keeping:)`), or as it is when the session's
        /// configuration sets no cookies (see ``URLSessionTransport``'s `cookieStorage`), or the
        /// transfer has finished.
        ///
        /// - Parameters:
        ///   - redirected: The request a redirect leads to.
        ///   - yourCookie: A `Cookie` field that your session's delegate set on it, kept as the
        ///     caller's own; `nil` for the one the caller gave the request, if any.
        /// - Returns: The request to follow.
        private func settingCookies(on redirected: URLRequest, keeping yourCookie: String? = nil) -> URLRequest {
            guard let cookieStorage = lock.withLock({ resender?.transport.cookieStorage }) else { return redirected }
            return redirected.settingCookies(from: cookieStorage, keeping: yourCookie ?? request.headers["Cookie"])
        }

        /// Follows a redirect to `redirected`, or, for `nil`, ends at the redirect's response.
        ///
        /// Linux's URLSession (swift-corelibs-foundation 6.3.1) follows a redirect that keeps the
        /// method (any on a 307 or 308; anything but a `POST` on a 301 or 302) without the body:
        /// the server gets the method, the `Content-Type` and an empty body. So when the request
        /// has a body, the transfer ends that task at the redirect and sends the redirected request
        /// on a new one, with the body (from memory, or read again from its file), as Apple's
        /// URLSession does; at most ``maximumRedirects`` times, then it fails with
        /// `URLError.httpTooManyRedirects`. A redirect that turns the request into a `GET` (a 303,
        /// or a 301 or 302 after a `POST`) is the session's to follow.
        ///
        /// - Parameters:
        ///   - redirected: The request the redirect leads to, or `nil` to stop at the redirect.
        ///   - old: The task that received the redirect.
        ///   - completionHandler: The session's completion handler for the redirect.
        func follow(
            _ redirected: URLRequest?,
            from old: URLSessionTask,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard var redirected, losesBody(redirected) else {
                completionHandler(redirected)
                return
            }
            if case .data(let data) = request.body {
                redirected.httpBody = data
            }
            enum Step { case ignore, follow(URLSessionTransport, URLRequest, Int), fail(Int) }
            let step: Step = lock.withLock {
                guard !isFinished, !isCancelled, old === task, let resender else { return .ignore }
                attempt += 1  // what the old task still reports belongs to an attempt that is over
                task = nil
                guard redirectsFollowed < Self.maximumRedirects else { return .fail(attempt) }
                redirectsFollowed += 1
                _ = closeBodyFile(failed: true)  // the new attempt writes the file from its start
                self.resender = (resender.transport, redirected)
                return .follow(resender.transport, redirected, attempt)
            }
            completionHandler(nil)  // the old task ends at the redirect's response
            // Not on this thread: it may be the session's, which making and resuming a task waits for.
            switch step {
            case .ignore:
                return
            case .follow(let transport, let request, let attempt):
                DispatchQueue.global().async {
                    guard let task = transport.makeTask(request, for: self, replacing: old) else {
                        self.finish(body: Data(), response: nil, error: URLError.sessionInvalidated, attempt: attempt)
                        return
                    }
                    self.start(task)
                }
            case .fail(let attempt):
                DispatchQueue.global().async {
                    self.finish(body: Data(), response: nil, error: URLError(.httpTooManyRedirects), attempt: attempt)
                }
            }
        }

        /// Whether Linux's URLSession would send `redirected`, the request a redirect leads to,
        /// without the body it must carry: the request has a body, and the redirect keeps its
        /// method.
        private func losesBody(_ redirected: URLRequest) -> Bool {
            switch request.body {
            case .data(let data):
                return !data.isEmpty && redirected.httpMethod == request.method.rawValue
            case .file:
                return redirected.httpMethod == request.method.rawValue
            case nil:
                return false
            }
        }

        /// The task delegate of your session, which the transfer passes events on to, or `nil`
        /// when it has none, or when the session is Kilo's own: its delegate is what called the
        /// transfer, and has no answer of its own.
        private static func callersDelegate(of session: URLSession) -> (any URLSessionTaskDelegate)? {
            guard let delegate = session.delegate as? any URLSessionTaskDelegate, !(delegate is SessionDelegate)
            else { return nil }
            return delegate
        }

        /// Whether to give your delegate's answer to `challenge` to Linux's URLSession
        /// (swift-corelibs-foundation 6.3.1) as it is; otherwise the challenge is declined.
        ///
        /// The session cannot take three answers: default handling, under which it waits forever
        /// for a credential that no one supplies; `.useCredential` without a credential, on which
        /// it traps; and a credential for a challenge from another origin (scheme, host and port)
        /// than the one the task started at, after a redirect: the session sends the credential
        /// with the task's original request, to the origin that redirected, not to the one that
        /// asked for it (and that origin redirects again, until the task fails with
        /// `URLError.httpTooManyRedirects`).
        private static func passesOn(
            _ disposition: URLSession.AuthChallengeDisposition,
            _ credential: URLCredential?,
            to challenge: URLAuthenticationChallenge,
            of task: URLSessionTask
        ) -> Bool {
            switch disposition {
            case .performDefaultHandling:
                return false
            case .useCredential:
                guard credential != nil, let challenged = challenge.failureResponse?.url,
                    let original = task.originalRequest?.url
                else { return false }
                return URLRequest.isSameOrigin(challenged, original)
            default:
                return true
            }
        }

        /// Declines a challenge, off the calling thread: declining cancels the task, which waits for
        /// the session's work queue, and on a session that delivers events inline this thread is that
        /// queue.
        private static func decline(
            _ completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
        }
    #endif

    /// Sends the request again on a new task: libcurl is about to resend it, and would send it
    /// without its body.
    ///
    /// libcurl asks to rewind the body when the connection it reused was closed before any
    /// response came (typically the server's keep-alive timeout ran out just as the request went
    /// out; gunicorn's is 2 seconds), to send the request again on a new connection. On Linux,
    /// swift-corelibs-foundation (6.3.1) cannot rewind a body from `Data` or a file: it reports
    /// success, and the new connection gets the headers, with their Content-Length, and no body.
    /// The server waits for a body that never comes, and the request fails with
    /// `URLError.timedOut` after its whole timeout. So the transfer answers at once with no
    /// stream (the session's queue waits for the answer, and a stream for a body that is not one
    /// is a fatal error there), cancels that task, and sends the request on a new one, as libcurl
    /// meant to. On Apple platforms this is asked only of streamed bodies, which Kilo does not use.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(nil)
        #if canImport(FoundationNetworking)
            // Not on this thread: it is the session's, which making and resuming a task waits for.
            DispatchQueue.global().async { self.resend(replacing: task) }
        #endif
    }

    private func resend(replacing old: URLSessionTask) {
        enum Step { case ignore, resend(URLSessionTransport, URLRequest, Int), fail(Int) }
        let step: Step = lock.withLock {
            guard !isFinished, !isCancelled, old === task else { return .ignore }
            guard let resender, attempt < Self.maximumResends else { return .fail(attempt) }
            attempt += 1
            task = nil
            _ = closeBodyFile(failed: true)  // the new attempt writes the file from its start
            return .resend(resender.transport, resender.request, attempt)
        }
        switch step {
        case .ignore:
            return
        case .resend(let transport, let request, let attempt):
            old.cancel()  // its completion belongs to an old attempt, and is ignored
            guard let task = transport.makeTask(request, for: self, replacing: old) else {
                finish(body: Data(), response: nil, error: URLError.sessionInvalidated, attempt: attempt)
                return
            }
            start(task)
        case .fail(let attempt):
            finish(body: Data(), response: nil, error: URLError(.networkConnectionLost), attempt: attempt)
            old.cancel()
        }
    }

    /// Cancels off the calling thread: on Linux, `cancel()` racing the task's completion can
    /// deadlock when called from a thread that the session is waiting on.
    private static func cancelAsynchronously(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
