import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Transport`` that sends requests with a `URLSession`.
///
/// Data bodies are sent from memory; file bodies are streamed from disk by an upload task, and a
/// ``TransportRequest/responseBodyFile`` is filled as the body arrives, so bodies of any size
/// move in bounded memory. Cancelling the calling Swift task cancels the `URLSessionTask`, which
/// then fails with `URLError.cancelled`.
///
/// There are two ways to make one:
///
/// - ``init(configuration:)``: the transport owns its session and the session's delegate. For a
///   request with a ``TransportRequest/progress`` observer, upload progress, and the progress of
///   bodies received in memory, is reported as bytes move. On Linux the session delivers its
///   completions to Kilo on its own work queue, which saves each request a thread hand-off.
/// - ``init(session:)``: it uses your session as it is, with completion handlers, so your
///   session's delegate keeps working. Progress is reported only when a request starts and
///   when it ends. On Linux the session delivers most completions to Kilo on its work queue
///   too, as it does for `URLSession.data(for:)`.
///
/// A download to a file (a ``TransportRequest/responseBodyFile``) goes, on a session the
/// transport owns on Linux, through a data task whose chunks the transport writes to the file as
/// they arrive, reporting progress as it goes; a download that fails leaves no file. Otherwise it
/// goes through a download task, which reports progress only at its ends, and on Linux leaves its
/// own temporary file behind (`UUID.tmp` in the temporary directory) when the transfer fails:
/// swift-corelibs-foundation neither removes it nor says where it is.
///
/// On Linux, a redirect to another origin (scheme, host and port) goes without the request's
/// `Authorization`, `Cookie` and `Proxy-Authorization` fields, which swift-corelibs-foundation
/// would otherwise send to whatever host the `Location` names; your session's delegate, if it
/// has one, still decides about each redirect, and sees the request without them. A redirect
/// that keeps the method (a 307 or 308; a 301 or 302 of anything but a `POST`) is sent on a new
/// task with the request's body, which swift-corelibs-foundation would leave out. The request a
/// redirect leads to gets the `Cookie` field of the session's cookie storage for its URL, chosen
/// as RFC 6265 says (path, `Secure`, expiry), as every request on a session the transport owns
/// does (see ``init(configuration:)``); on your session, the first request of each task (a
/// redirect that keeps the body goes on a new task) gets the cookies swift-corelibs-foundation
/// chooses, by host alone.
///
/// On Linux, a 401 response with a `Basic` challenge that names a realm would never complete
/// (swift-corelibs-foundation waits for credentials that no one supplies); a 401 with another
/// challenge, such as `Bearer`, is returned with its body, as any other response. Your session's
/// delegate, if it has one, is asked first, as without Kilo; a challenge that no one answers
/// with credentials (or that your delegate leaves to default handling, or answers with
/// `.useCredential` and no credential, on which swift-corelibs-foundation traps) is declined, and
/// the transport returns the response, with its status and headers but an empty body. So is a
/// challenge from another origin than the request's, after a redirect, whatever your delegate
/// answers: swift-corelibs-foundation would send the credential to the origin the request
/// started at.
///
/// On Linux, a request on your session (``init(session:)``) whose configuration has a URL cache,
/// cancelled just after it starts, can crash the process inside swift-corelibs-foundation, which
/// is still looking up its cached response; a session the transport owns answers that lookup at
/// once and is not affected (see ``init(configuration:)``).
public struct URLSessionTransport: CallbackTransport {
    /// The session that sends requests.
    ///
    /// A session that the transport owns (``init(configuration:)``) runs, on Linux, every
    /// completion handler on its work queue, which all sessions share. Keep it for Kilo's
    /// requests: a task of yours on it would run its completion handler there too, where
    /// making, resuming or cancelling a task traps.
    public let session: URLSession

    private let owner: SessionOwner?
    /// Whether completions run on a delegate queue of your session's that may take its time: off
    /// the main thread, and not `URLSession.shared`'s; see ``CallbackTransport/completionMayTakeTime``.
    package let completionMayTakeTime: Bool
    /// The capitalized names of this transport's request headers.
    private let headerNames = HeaderNameCase()
    /// The timeout of a request that has none of its own, in place of the session's
    /// `timeoutIntervalForRequest` where Linux's URLSession would misread that; `nil` to leave it
    /// to the session (see ``requestTimeout(for:)``).
    private let requestTimeout: TimeInterval?
    /// Whether the session's configuration sends an `Accept` field of its own
    /// (`httpAdditionalHeaders`), which a request's own `Accept` would replace.
    package let configurationSendsAccept: Bool
    #if canImport(FoundationNetworking)
        /// The cookie storage whose cookies the transport sets on requests itself (see
        /// `URLRequest.settingCookies(from:keeping:)`): the configuration's, unless its
        /// `httpShouldSetCookies` is off; on a session of your own, only on redirects.
        let cookieStorage: HTTPCookieStorage?
        /// Cookie hook: the jar that takes in the cookies each response and redirect sets, within
        /// ``CookiePolicy``'s limits (see ``CookieJar``), or `nil` when the configuration stores none.
        /// On a session the transport owns it stores them (the session stores none); on yours it
        /// prunes what the session stored.
        let cookieJar: CookieJar?
    #endif

    /// Creates a transport that sends requests with your session, as it is.
    ///
    /// On Linux, the transport asks the session to run each task's completion handler at once, on
    /// the session's work queue, as `URLSession.data(for:)` asks for its own tasks, rather than
    /// on your delegate queue: a finished request reaches its caller without first waking a
    /// delegate-queue thread, and without waiting behind whatever else that queue runs. A
    /// request with a progress observer or a response body file is the exception: its
    /// completion, which calls your progress handler or writes the file, still runs on the
    /// delegate queue. Your delegate's own events (challenges, redirects, body streams) run on
    /// the delegate queue as before. swift-corelibs-foundation keeps this choice in a property
    /// that only its own code sets, so Kilo sets it through the runtime's description of the
    /// task class; should a version of the platform have no such property, completions run on the
    /// delegate queue, as without Kilo.
    ///
    /// Elsewhere, while other callback requests of a proxy are in flight, Kilo's callback methods
    /// decode a response on the session's delegate queue, where its completion handlers run, one
    /// response at a time (a session's default delegate queue is serial), as code that decodes in
    /// a completion handler does; so a response handler must not wait there for another request
    /// of the session. They do not for `URLSession.shared`, whose queue the whole process shares,
    /// nor when the queue runs on the main thread.
    ///
    /// On Linux, a request without a timeout of its own, on a session whose
    /// `timeoutIntervalForRequest` has a fraction of a second, gets that timeout rounded up to
    /// whole seconds, as a request's own is.
    ///
    /// Once you invalidate the session (`finishTasksAndInvalidate()`, `invalidateAndCancel()`),
    /// stop sending with the transport: making a task in an invalidated session traps, on Linux
    /// as on Apple platforms. Requests already in flight end with their outcome, or with
    /// `URLError.cancelled` (after `invalidateAndCancel()`, or for one that Kilo would have to
    /// send again on a new task). On Linux this includes `URLSession.shared`, which
    /// `finishTasksAndInvalidate()` invalidates there (Apple's URLSession ignores it).
    ///
    /// - Parameter session: The session that sends requests. Keep one session for many requests:
    ///   it reuses connections.
    public init(session: URLSession = .shared) {
        self.session = session
        self.owner = nil
        self.completionMayTakeTime =
            Self.completesOnDelegateQueue && session !== URLSession.shared
            && !Self.deliversOnMainThread(session)
        self.requestTimeout = Self.requestTimeout(for: session)
        let configuration = session.configuration
        self.configurationSendsAccept = Self.sendsAccept(configuration)
        #if canImport(FoundationNetworking)
            self.cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
            self.cookieJar = CookieJar(receivingFor: configuration, isStoredBySession: true)  // Cookie hook
        #endif
    }

    /// Creates a transport with a session of its own, which reports progress as bytes move.
    ///
    /// The session lives as long as the transport (and its copies); then it finishes its tasks
    /// and is invalidated. Keep one transport for many requests: it reuses connections.
    ///
    /// On Linux, the session's delegate queue runs what the session gives it at once, on the
    /// session's work queue, as `URLSession.data(for:)` does for its own completion: a finished
    /// request reaches its caller without first waking a delegate-queue thread. Progress handlers,
    /// moving downloaded files, and everything else that may take time run on a serial queue of
    /// the transport's. Use ``session`` for Kilo's requests only.
    ///
    /// On Linux, a `timeoutIntervalForRequest` with a fraction of a second is rounded up to whole
    /// seconds, as a request's timeout is (Linux's URLSession would truncate it, and 0.5 s would
    /// expire at once), and an infinite one, on which it traps, means no limit.
    ///
    /// On Linux, the configuration's `URLCache` (unless it is of a subclass of your own) is
    /// wrapped in one that keeps the responses in it but answers each request's lookup at once:
    /// swift-corelibs-foundation looks a cached response up on a background queue after a task
    /// is resumed, and a task cancelled before the answer came could crash the process.
    ///
    /// On Linux, when the configuration sets cookies (`httpShouldSetCookies`, with a cookie
    /// storage), the transport sets each request's `Cookie` field itself, choosing the stored
    /// cookies as RFC 6265 says: for the request's host or domain and path, `Secure` ones only
    /// over `https`, and none that have expired. swift-corelibs-foundation chooses them by host
    /// alone (a `Secure` cookie went over plain `http`, a cookie for `/admin` to `/public`) and
    /// never applies `Max-Age`. So the session's copy of the configuration has
    /// `httpShouldSetCookies` off; it keeps the storage, and the session stores the cookies that
    /// responses set as before.
    ///
    /// - Parameter configuration: The session's configuration, such as `.default` or `.ephemeral`.
    public init(configuration: URLSessionConfiguration) {
        let owner = SessionOwner(configuration: configuration)
        self.session = owner.session
        self.owner = owner
        self.completionMayTakeTime = false  // on Linux, completions run on the session's work queue
        self.requestTimeout = nil  // the session's configuration has one it can count
        self.configurationSendsAccept = Self.sendsAccept(configuration)
        #if canImport(FoundationNetworking)
            self.cookieStorage = owner.cookieStorage
            self.cookieJar = owner.cookieJar
        #endif
    }

    /// Whether `configuration`'s `httpAdditionalHeaders` has an `Accept` field, in any case.
    private static func sendsAccept(_ configuration: URLSessionConfiguration) -> Bool {
        configuration.httpAdditionalHeaders?.keys.contains { ($0.base as? String)?.lowercased() == "accept" } ?? false
    }

    /// The timeout to give a request that has none of its own, when `session`'s
    /// `timeoutIntervalForRequest` has a fraction of a second, which Linux's URLSession would
    /// truncate (0.5 s would expire at once): rounded up, as a request's is (see
    /// `URLRequest.init(_:)`). `nil` elsewhere, and for a timeout the session takes as it is.
    private static func requestTimeout(for session: URLSession) -> TimeInterval? {
        #if canImport(FoundationNetworking)
            let timeout = session.configuration.timeoutIntervalForRequest
            guard timeout > 0, timeout <= TransportRequest.longestTimeout, timeout.rounded(.up) != timeout else {
                return nil  // an infinite one traps in the session, whatever the request says
            }
            return URLRequest.timeoutForSession(timeout)
        #else
            return nil
        #endif
    }

    /// Whether `session` runs its completion handlers on the main thread.
    private static func deliversOnMainThread(_ session: URLSession) -> Bool {
        let queue = session.delegateQueue
        return queue === OperationQueue.main || queue.underlyingQueue?.isMainQueue == true
    }

    /// Sends a request with the session.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status code.
    /// - Throws: ``RequestError`` for a request that cannot be sent (nothing is sent; see
    ///   ``TransportRequest/validate()``), `URLError(.fileDoesNotExist)` for a file body that is
    ///   missing, unreadable or not a regular file (a directory, a device, a pipe; nothing is
    ///   sent), the `URLError` the session reports, or the file system's error if the response
    ///   body file cannot be written.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try request.validate()
        try request.checkFileBody()
        let transfer = SessionTransfer(request)
        return try await withTaskCancellationHandler {
            // Not a checked continuation (an object and an atomic exchange per request, to catch
            // a second resume): the transfer takes its completion exactly once, under its lock,
            // before it calls it (see SessionTransfer.finish).
            try await withUnsafeThrowingContinuation { continuation in
                begin(transfer) { continuation.resume(with: $0) }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Starts sending a request with the session, without a Swift task.
    ///
    /// `completion` runs on the session's delegate queue; on Linux, on the session's work queue
    /// (see ``init(session:)`` and ``init(configuration:)``), except for a request with a progress
    /// observer or a response body file, whose completion runs on your session's delegate queue,
    /// or on the serial queue of a session the transport owns; for a request that cannot be sent
    /// (bad headers, an unreadable file body), on a global queue.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - completion: Receives the response or the error that ``send(_:)`` would throw.
    /// - Returns: The started request, to cancel it.
    package func start(
        _ request: TransportRequest,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportTask {
        do {
            try request.validate()
            try request.checkFileBody()
        } catch {
            DispatchQueue.global().async { completion(.failure(error)) }
            return TransportTask {}
        }
        let transfer = SessionTransfer(request)
        begin(transfer, completion: completion)
        return TransportTask { transfer.cancel() }
    }

    /// Makes and resumes the first task of `transfer`.
    private func begin(
        _ transfer: SessionTransfer,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) {
        var urlRequest = URLRequest(transfer.request, headerNames: headerNames)
        if let requestTimeout, transfer.request.timeoutInterval == nil {
            urlRequest.timeoutInterval = requestTimeout
        }
        transfer.prepare(completion: completion, resender: (self, urlRequest))
        transfer.start(makeTask(urlRequest, for: transfer))
    }

    /// Makes a task that sends `transfer`'s request again, or the request a redirect leads to, in
    /// place of `old`; see ``SessionTransfer/urlSession(_:task:needNewBodyStream:)`` and
    /// ``SessionTransfer/follow(_:from:completionHandler:)``.
    ///
    /// - Returns: The task, or `nil` if the session has been invalidated since `old` was made
    ///   (see `URLSession.isInvalidated`): a task made now would trap, where the session would
    ///   have let `old` finish.
    func makeTask(_ urlRequest: URLRequest, for transfer: SessionTransfer, replacing old: URLSessionTask)
        -> URLSessionTask?
    {
        owner?.delegate.unregister(old.taskIdentifier)
        guard !session.isInvalidated else { return nil }
        return makeTask(urlRequest, for: transfer)
    }

    /// Makes a task for `transfer`, on the owned session if there is one, where it sets the
    /// request's cookies itself, as the session would (see ``init(configuration:)``).
    private func makeTask(_ urlRequest: URLRequest, for transfer: SessionTransfer) -> URLSessionTask {
        guard let owner else { return makeTaskWithCompletionHandler(urlRequest, for: transfer) }
        #if canImport(FoundationNetworking)
            if let cookieStorage {
                let callersCookie = transfer.request.headers["Cookie"]
                let urlRequest = urlRequest.settingCookies(from: cookieStorage, keeping: callersCookie)
                return makeTask(urlRequest, for: transfer, delegatedTo: owner.delegate)
            }
        #endif
        return makeTask(urlRequest, for: transfer, delegatedTo: owner.delegate)
    }

    /// Makes a task on the owned session.
    ///
    /// Only a request that asks for progress gets a delegate-driven task: the per-chunk
    /// callbacks cost (on Linux, about 25,000 operations on the delegate queue for a 1 GiB
    /// upload), so other requests use completion handlers, and the delegate sees only their
    /// authentication challenges and redirects; on Linux not even those: there the transfer is
    /// such a task's own delegate, as on your session, which spares each request registering
    /// with the session's delegate (about a point of throughput at one request in flight).
    ///
    /// A download to a file is, on Linux, a delegate-driven data task (an upload task, for a file
    /// body) whose chunks the transfer writes to the file at once, on the session's work queue, as
    /// URLSession writes a download task's file there: nothing waits in memory, and a failed
    /// download leaves no file behind (a download task's own temporary file is not removed when
    /// the task fails). Elsewhere a download uses a download task with a completion handler, and
    /// reports progress only at its ends: a download delegate's per-chunk callbacks wait in memory
    /// for the delegate queue.
    private func makeTask(
        _ urlRequest: URLRequest,
        for transfer: SessionTransfer,
        delegatedTo delegate: SessionDelegate
    ) -> URLSessionTask {
        let task: URLSessionTask
        switch (transfer.request.body, transfer.request.responseBodyFile, transfer.request.progress) {
        #if canImport(FoundationNetworking)
            case (.file(let fileURL), .some, _):
                // An upload whose response goes to a file: written chunk by chunk, as a download's.
                transfer.writesBodyFileItself()
                task = session.uploadTask(with: urlRequest, fromFile: Self.uploadable(fileURL))
        #endif
        case (.file(let fileURL), _, .some):
            task = session.uploadTask(with: urlRequest, fromFile: Self.uploadable(fileURL))
        case (_, nil, .some):
            task = session.dataTask(with: urlRequest)
        #if canImport(FoundationNetworking)
            case (.data, .some, _), (nil, .some, _):
                transfer.writesBodyFileItself()
                task = session.dataTask(with: urlRequest)
        #endif
        default:
            let task = makeTaskWithCompletionHandler(urlRequest, for: transfer)
            #if !canImport(FoundationNetworking)
                let identifier = task.taskIdentifier
                transfer.whenFinished { [weak delegate] in delegate?.unregister(identifier) }
                delegate.register(transfer, for: task, completesThroughDelegate: false)
            #endif
            return task
        }
        delegate.register(transfer, for: task, completesThroughDelegate: true)
        return task
    }

    /// Makes a task that reports to completion handlers.
    private func makeTaskWithCompletionHandler(
        _ urlRequest: URLRequest,
        for transfer: SessionTransfer
    ) -> URLSessionTask {
        let attempt = transfer.currentAttempt
        let delivery = finishingDelivery(for: transfer)
        let task: URLSessionTask
        switch (transfer.request.body, transfer.request.responseBodyFile) {
        case (.file(let fileURL), _):
            task = session.uploadTask(
                with: urlRequest,
                fromFile: Self.uploadable(fileURL),
                completionHandler: Self.completionHandler(finishing: transfer, attempt: attempt, via: delivery)
            )
        case (_, .some):
            let delegate = owner?.delegate
            task = session.downloadTask(with: urlRequest) { location, response, error in
                let current = location.flatMap { attempt == transfer.currentAttempt ? $0 : nil }
                guard let delegate else {
                    if let current {
                        transfer.keepDownload(at: current)  // now: the session deletes the file when this returns
                    }
                    transfer.finish(body: Data(), response: response, error: error, attempt: attempt)
                    return
                }
                // On the session's work queue: only an instant rename; the move happens later.
                let parked = current.flatMap { transfer.parkDownload(at: $0) }
                delegate.deliver {
                    if let parked {
                        transfer.keepDownload(at: parked)
                    }
                    transfer.finish(body: Data(), response: response, error: error, attempt: attempt)
                }
            }
        default:
            task = session.dataTask(
                with: urlRequest,
                completionHandler: Self.completionHandler(finishing: transfer, attempt: attempt, via: delivery)
            )
        }
        #if canImport(FoundationNetworking)
            // To decline authentication challenges, follow redirects and resend bodies, on either
            // session; see SessionTransfer.
            task.delegate = transfer
            if transfer.request.progress == nil, transfer.request.responseBodyFile == nil {
                task.completeInline()  // finishing only hands the outcome on
            }
        #endif
        return task
    }

    /// Whether completion handlers on your session run on its delegate queue: everywhere but on
    /// Linux, where the transport asks for them on the session's work queue (see
    /// `URLSessionTask.completeInline()`).
    private static var completesOnDelegateQueue: Bool {
        #if canImport(FoundationNetworking)
            !URLSessionTask.completesInline
        #else
            true
        #endif
    }

    /// The file to give an upload task for a file body: the file a symbolic link names. Linux's
    /// URLSession takes the body's length from the link itself, and sends that many bytes (or,
    /// on a session the transport owns, breaks the connection and spins).
    private static func uploadable(_ file: URL) -> URL {
        file.resolvingSymlinksInPath()
    }

    /// Where a completion handler finishes `transfer`: `nil` for on the spot, which is quick (it
    /// hands the response to the waiting caller), or the owned session's delegate, whose queue
    /// takes finishing that may take time (calling the caller's progress handler, or writing the
    /// response to a file) off a session that delivers completions on its work queue.
    private func finishingDelivery(for transfer: SessionTransfer) -> SessionDelegate? {
        guard let delegate = owner?.delegate,
            transfer.request.progress != nil || transfer.request.responseBodyFile != nil
        else { return nil }
        return delegate
    }

    /// The completion handler of a data or upload task: it finishes `transfer`, on the spot or
    /// through `delivery`.
    ///
    /// It captures only the transfer, its attempt and the delivery: one allocation per task.
    private static func completionHandler(
        finishing transfer: SessionTransfer,
        attempt: Int,
        via delivery: SessionDelegate?
    ) -> @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
        { data, response, error in
            let body = data ?? Data()
            guard let delivery else {
                transfer.finish(body: body, response: response, error: error, attempt: attempt)
                return
            }
            delivery.deliver { transfer.finish(body: body, response: response, error: error, attempt: attempt) }
        }
    }
}

/// Owns a session whose delegate is Kilo's, and invalidates it when the last transport that
/// uses it goes away.
private final class SessionOwner: Sendable {
    let session: URLSession
    let delegate: SessionDelegate
    #if canImport(FoundationNetworking)
        /// The cookie storage whose cookies the transport sets on requests in the session's
        /// place, or `nil` when the configuration sets none (see ``settingCookiesItself(_:)``).
        let cookieStorage: HTTPCookieStorage?
        /// The jar that stores the cookies responses set, in the session's place (see ``CookieJar``).
        let cookieJar: CookieJar?
    #endif

    init(configuration: URLSessionConfiguration) {
        #if canImport(FoundationNetworking)
            cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
            cookieJar = CookieJar(receivingFor: configuration, isStoredBySession: false)  // Cookie hook
            // Completions reach the waiting caller straight from the session's work queue,
            // without waking a delegate-queue thread first; see ImmediateOperationQueue.
            delegate = SessionDelegate(
                movesEventsOffSessionQueue: true,
                cookieStorage: cookieStorage,
                cookieJar: cookieJar
            )
            let delegateQueue: OperationQueue? = ImmediateOperationQueue()
            // Cookie hook: the session stores no cookies; the jar does (see CookieJar).
            let configuration = CookieJar.sessionConfiguration(
                Self.settingCookiesItself(
                    Self.countingTheRequestTimeout(Self.lookingUpCachedResponsesAtOnce(configuration))
                )
            )
        #else
            delegate = SessionDelegate(movesEventsOffSessionQueue: false)
            let delegateQueue: OperationQueue? = nil
        #endif
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    #if canImport(FoundationNetworking)
        /// A copy of `configuration` whose URL cache answers lookups at once, keeping its
        /// responses in the configuration's cache (see ``ImmediateLookupURLCache``), or
        /// `configuration` itself when it has no cache, or a cache of a subclass, whose lookups
        /// are left to it.
        private static func lookingUpCachedResponsesAtOnce(
            _ configuration: URLSessionConfiguration
        ) -> URLSessionConfiguration {
            guard let cache = configuration.urlCache, type(of: cache) == URLCache.self,
                let copy = configuration.copy() as? URLSessionConfiguration
            else { return configuration }
            copy.urlCache = ImmediateLookupURLCache(storingIn: cache)
            return copy
        }

        /// `configuration`, or a copy of it whose `timeoutIntervalForRequest` Linux's URLSession
        /// can count, as a request's timeout is made countable (see `URLRequest.init(_:)`): a
        /// fraction of a second rounded up (it would be truncated, and 0.5 s would expire at
        /// once), and an infinite timeout bounded (the session traps on it, in every request).
        private static func countingTheRequestTimeout(
            _ configuration: URLSessionConfiguration
        ) -> URLSessionConfiguration {
            let timeout = configuration.timeoutIntervalForRequest
            guard timeout > 0 else { return configuration }
            let countable = URLRequest.timeoutForSession(timeout)
            guard countable != timeout, let copy = configuration.copy() as? URLSessionConfiguration else {
                return configuration
            }
            copy.timeoutIntervalForRequest = countable
            return copy
        }

        /// `configuration`, or a copy of it whose `httpShouldSetCookies` is off when it is on and
        /// there is a cookie storage: the transport sets each request's cookies itself, chosen as
        /// RFC 6265 says (see `URLRequest.settingCookies(from:keeping:)`), since Linux's
        /// URLSession chooses them by host alone. The copy keeps the storage, so the session still
        /// stores the cookies that responses set, redirects' included, as it did.
        private static func settingCookiesItself(
            _ configuration: URLSessionConfiguration
        ) -> URLSessionConfiguration {
            guard configuration.httpShouldSetCookies, configuration.httpCookieStorage != nil,
                let copy = configuration.copy() as? URLSessionConfiguration
            else { return configuration }
            copy.httpShouldSetCookies = false
            return copy
        }
    #endif

    deinit {
        session.finishTasksAndInvalidate()
    }
}

extension TransportResponse {
    /// Creates a response from an `HTTPURLResponse` and its body.
    ///
    /// The header fields are converted from the response's `allHeaderFields` only when they are
    /// first read, on the reading thread: a decoded result never needs them, and converting them
    /// is a noticeable part of a small request.
    ///
    /// A field that `allHeaderFields` holds under several spellings of its name (Linux's
    /// URLSession keeps `X-Id` and `x-id` apart) becomes one field whose values are joined with
    /// `", "`, as a repeated field's are; the order they arrived in is lost, so they are joined in
    /// the order of their names' spellings.
    ///
    /// - Parameters:
    ///   - response: The response's status and headers.
    ///   - body: The body.
    public init(_ response: HTTPURLResponse, body: Data) {
        self.init(statusCode: response.statusCode, body: body) {
            var headers = HTTPHeaders()
            for (name, value) in response.allHeaderFields {
                let field = Self.field(name: name, value: value)
                guard headers[field.name] == nil else {
                    return Self.joiningSpellings(of: response.allHeaderFields)
                }
                headers[field.name] = field.value
            }
            return headers
        }
    }

    /// The fields of `allHeaderFields`, some of whose names come in several spellings: in name
    /// order, the value of each later spelling joined to the first's with `", "`.
    private static func joiningSpellings(of allHeaderFields: [AnyHashable: Any]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for field in allHeaderFields.map(field).sorted(by: { $0.name < $1.name }) {
            if let value = headers[field.name] {
                headers[field.name] = value + ", " + field.value
            } else {
                headers[field.name] = field.value
            }
        }
        return headers
    }

    /// One field of `allHeaderFields`.
    private static func field(name: AnyHashable, value: Any) -> HTTPHeaders.Field {
        // Names and values are strings; a cast is cheaper than `String(describing:)`.
        HTTPHeaders.Field(
            name: name.base as? String ?? String(describing: name),
            value: value as? String ?? String(describing: value)
        )
    }
}
