import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of ``URLSessionTransport``, as its task's own delegate: it hands the response's
/// status and headers to the waiting caller, then the body's chunks to a ``BodyBuffer`` as they
/// arrive.
///
/// Every decision about the task's events is made by ``TransferState`` under `lock`; the
/// session's callbacks only deliver what it decides. On Linux they run on the session's own work
/// queue (see `ImmediateOperationQueue`), so they never wait, and never make, resume or cancel a
/// task on the calling thread.
///
/// `@unchecked Sendable`: its mutable state is `state`, `response` and `currentRequest`, read
/// and written only under `lock`.
final class SessionTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let request: TransportRequest
    /// How the response will be read: its limits go on the body as the head arrives.
    let consumption: ResponseConsumption
    let transport: URLSessionTransport
    let body: BodyBuffer
    /// The size of a file body when the request started: its `Content-Length`.
    let fileBodySize: Int64?

    let lock = Lock()
    var state = TransferState<URLSessionTask>()
    /// The caller waiting for the response's status and headers, until they come or fail.
    private var response: UnsafeContinuation<StreamedResponse, any Error>?
    /// The `URLRequest` the current task sends; a redirect followed on a new task replaces it.
    var currentRequest: URLRequest
    /// The redirects followed so far, which fail the request past the limit or at a loop.
    private var redirects: RedirectPolicy.Chain
    /// A response that carries an authentication challenge, and its body, held back until the
    /// challenge is answered, where the platform reports it first (see ``TransferPlatform``).
    var challenged: (response: HTTPURLResponse, body: Data)?

    init(
        _ request: TransportRequest,
        sending urlRequest: URLRequest,
        consuming consumption: ResponseConsumption,
        with transport: URLSessionTransport
    ) {
        self.request = request
        self.consumption = consumption
        self.transport = transport
        self.currentRequest = urlRequest
        self.redirects = RedirectPolicy.Chain(request.method.rawValue, request.url)
        self.body = BodyBuffer(policy: transport.bodyPolicy)
        if case .file = request.body {
            self.fileBodySize = request.bodySize
        } else {
            self.fileBodySize = nil
        }
    }

    /// Sends the request on a new task and waits for the response's status and headers.
    ///
    /// - Throws: The task's error, `URLError.sessionInvalidated` when the session can make no
    ///   more tasks.
    func run() async throws -> StreamedResponse {
        try await withUnsafeThrowingContinuation { continuation in
            lock.withLock { response = continuation }
            body.attach(
                BodyBuffer.Producer(
                    cancel: { [weak self] in self?.cancel() },
                    pause: { [weak self] in self?.lock.withLock { self?.state.task }?.suspend() },
                    resume: { [weak self] in self?.lock.withLock { self?.state.task }?.resume() }
                )
            )
            startTask(sending: lock.withLock { currentRequest }, replacing: false)
        }
    }

    /// Makes a task for `urlRequest` and resumes it, or, if cancellation came first, cancels it
    /// unresumed: it then ends with `URLError.cancelled` and sends nothing. `replacing` says it
    /// takes the place of an earlier task (a redirect or a resend), which a session invalidated
    /// meanwhile cannot make.
    func startTask(sending urlRequest: URLRequest, replacing: Bool = true) {
        let made: URLSessionTask?
        do {
            made = try transport.makeTask(sending: urlRequest, for: self, replacing: replacing)
        } catch {
            fail(error)
            return
        }
        guard let task = made else {
            fail(URLError.sessionInvalidated)
            return
        }
        let resumes = lock.withLock { state.begin(task) }
        if resumes {
            request.progress?.reportSent(0, of: fileBodySize ?? request.bodySize)
            task.resume()
            if let cancelled = lock.withLock({ state.didResume() }) {
                Self.cancelAsynchronously(cancelled)
            }
            watchFileBody(of: task)
        } else {
            Self.cancelAsynchronously(task)
        }
    }

    /// Cancels the request: its task now, or as soon as it has one. A caller still waiting for
    /// the response gets `URLError(.cancelled)` at once, without waiting for the task to report
    /// its end, which a platform busy with the transfer may never do (see Docs/Linux.md).
    func cancel() {
        if let task = lock.withLock({ state.cancel() }) {
            Self.cancelAsynchronously(task)
        }
        failWaitingCaller(URLError(.cancelled))
    }

    /// Ends the request with `error` when no task of its own will report it.
    func fail(_ error: any Error) {
        guard lock.withLock({ state.finish() }) else { return }
        failWaitingCaller(error)
    }

    /// Delivers the status and headers to the caller, with the body still to come.
    func deliver(_ head: HTTPURLResponse) {
        let waiting = lock.withLock { () -> UnsafeContinuation<StreamedResponse, any Error>? in
            defer { response = nil }
            return response
        }
        waiting?.resume(
            returning: StreamedResponse(head: TransportResponse(head, body: Data()), body: ResponseBody(body))
        )
    }

    // MARK: - The task's events

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        guard !transferPlatform.holds(response, of: dataTask, in: self) else { return }
        guard lock.withLock({ state.receiveResponse(of: dataTask) }) else { return }
        guard !fileBodyChanged() else {
            failForChangedFile(dataTask)
            return
        }
        guard let head = response as? HTTPURLResponse, !Self.hasUnusableLength(head) else {
            // Which length frames the body is anyone's guess, and a guess is how responses are
            // smuggled, or cut short unnoticed.
            _ = lock.withLock { state.complete(dataTask) }
            failWaitingCaller(URLError(.badServerResponse))
            Self.cancelAsynchronously(dataTask)
            return
        }
        // Before any of the body arrives, which may be before the head reaches the caller.
        body.apply(consumption, isSuccess: (200..<300).contains(head.statusCode))
        guard !transferPlatform.deliversAfterStoringCookies(of: head, in: self) else { return }
        deliver(head)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !transferPlatform.keeps(data, of: dataTask, in: self) else { return }
        guard lock.withLock({ state.acceptsBody(of: dataTask) }) else { return }
        body.append(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard lock.withLock({ state.isCurrent(task) }) else { return }
        request.progress?.reportSent(totalBytesSent, of: fileBodySize ?? totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let outcome = lock.withLock { () -> (TransferState<URLSessionTask>.Phase, Bool)? in
            state.complete(task).map { ($0, state.isCancelled) }
        }
        guard let (phase, isCancelled) = outcome else { return }
        var error = error.map { ($0 as? URLError)?.normalized() ?? $0 }
        if !isCancelled {
            error = transferPlatform.error(error, endingUncancelled: task, in: self)
        }
        switch phase {
        case .receivingBody:
            body.finish(throwing: error)
        case .waitingForResponse:
            if let (response, data) = endingResponse(of: task, error: error, isCancelled: isCancelled) {
                guard !Self.hasUnusableLength(response) else {
                    failWaitingCaller(URLError(.badServerResponse))  // as when delivered at once
                    return
                }
                body.apply(consumption, isSuccess: (200..<300).contains(response.statusCode))
                body.append(data)
                body.finish()
                guard !transferPlatform.deliversAfterStoringCookies(of: response, in: self) else { return }
                deliver(response)
            } else {
                failWaitingCaller(error ?? URLError(.badServerResponse))
            }
        case .finished:
            break
        }
    }

    /// The response to deliver, with its body, for a task that completed before its response
    /// was delivered: one held back for a challenge, or the task's own; `nil` when the request
    /// failed.
    private func endingResponse(
        of task: URLSessionTask,
        error: (any Error)?,
        isCancelled: Bool
    ) -> (HTTPURLResponse, Data)? {
        if let held = transferPlatform.heldResponse(of: task, endingWith: error, isCancelled: isCancelled, in: self) {
            return held
        }
        guard error == nil, let response = task.response as? HTTPURLResponse else { return nil }
        return (response, Data())
    }

    /// Fails the caller still waiting for the response, and the body, with `error`.
    func failWaitingCaller(_ error: any Error) {
        let waiting = lock.withLock { () -> UnsafeContinuation<StreamedResponse, any Error>? in
            defer { response = nil }
            return response
        }
        waiting?.resume(throwing: error)
        body.finish(throwing: error)
    }

    /// Whether a response's `Content-Length` cannot frame its body: repeated with different
    /// values (URLSession joins a repeated field's values with ", "), or past 64 bits, which
    /// libcurl ignores, reading until the connection closes (other non-numbers it refuses).
    private static func hasUnusableLength(_ response: HTTPURLResponse) -> Bool {
        guard let field = response.value(forHTTPHeaderField: "Content-Length") else { return false }
        let values = field.split(separator: ",", omittingEmptySubsequences: false)
        let lengths = Set(values.map { $0.trimmingCharacters(in: .whitespaces) })
        guard lengths.count == 1, let length = lengths.first else { return true }
        // `Int64` alone would take a sign; all digits, it fails only for none or too many.
        return !length.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } || Int64(length) == nil
    }

    /// Follows a redirect with the credentials it may carry (see
    /// `URLRequest.following(_:from:)`), asking your session's delegate
    /// first, if it has one, as it would be asked without Kilo; see ``TransferPlatform``.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let previous = task.currentRequest ?? lock.withLock { currentRequest }
        var redirected = request.following(response, from: previous)
        if let next = redirected, let url = next.url {
            let setsCookies = response.value(forHTTPHeaderField: "Set-Cookie") != nil
            do {
                try lock.withLock { try redirects.follow(next.httpMethod ?? "GET", to: url, setsCookies: setsCookies) }
            } catch {
                fail(error)  // first, so that the redirect's response, now the answer, is not delivered
                redirected = nil
            }
        }
        transferPlatform.follow(
            redirected,
            of: task,
            after: response,
            in: session,
            for: self,
            completionHandler: completionHandler
        )
    }

    /// Answers an authentication challenge: your session's delegate decides, if it has one, as
    /// without Kilo; see ``TransferPlatform``.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        transferPlatform.answer(challenge, of: task, in: session, for: self, completionHandler: completionHandler)
    }

    /// Kilo gives no stream: its bodies are data or files; see ``TransferPlatform``.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(nil)
        transferPlatform.didRefuseNewBodyStream(for: task, in: self)
    }

    /// The task delegate of your session, which the transfer asks about redirects and
    /// challenges, or `nil` when it has none, or when the session is the transport's own.
    var callersDelegate: (any URLSessionTaskDelegate)? {
        guard let delegate = transport.session.delegate as? any URLSessionTaskDelegate,
            !transferPlatform.isKilos(delegate)
        else { return nil }
        return delegate
    }

    /// Cancels off the calling thread: on Linux, `cancel()` racing the task's completion can
    /// deadlock when called from a thread that the session is waiting on (corelibs #5412). (A
    /// task is never cancelled while it is being resumed, which crashes Linux's URLSession; see
    /// `TransferState.didResume()`.)
    static func cancelAsynchronously(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
