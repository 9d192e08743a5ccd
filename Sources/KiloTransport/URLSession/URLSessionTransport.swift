import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Transport`` that sends requests with a `URLSession`.
///
/// Each request is a data task (an upload task for a file body; on Linux a data task with the
/// file as a stream of its size, see Docs/Linux.md) whose delegate hands the response's status
/// and headers to the caller as soon as they arrive, then its body chunk by chunk, in bounded
/// memory: on Apple platforms a reader that falls behind suspends the task until it catches up;
/// on Linux, where URLSession cannot pause a transfer, what a reader has not taken past 1 MiB
/// waits in unnamed temporary files, given back as it is read, up to the bound on what waits
/// unread, past which the body fails with `LimitError.unreadTooLarge` (Docs/Linux.md).
/// Cancelling the calling task, or the body, cancels the task. Progress is reported as bytes
/// move, both ways.
///
/// There are two ways to make one:
///
/// - ``init(configuration:)``: the transport owns its session.
/// - ``init(session:)``: it uses your session as it is; your session's delegate is still asked
///   about redirects and authentication challenges, and its other events run as before.
///
/// A redirect to another origin (scheme, host and port) goes without the request's
/// `Authorization`, `Cookie` and `Proxy-Authorization` fields, and one to the same origin keeps
/// them, on every platform. A background session's configuration is refused with
/// ``RequestError/backgroundSession(_:)``: Apple allows no data tasks there.
///
/// On Linux Kilo works around a few of swift-corelibs-foundation's behaviours (bodies lost on
/// redirects and on connections closed under a request, challenges no one answers, timeouts
/// truncated to whole seconds, cookies chosen by host alone); each is described where it is
/// handled, under `URLSession/Linux/`, and in Docs/Linux.md. Linux server programs are better
/// served by `AsyncHTTPClientTransport`.
public struct URLSessionTransport: Transport {
    /// The session that sends requests: yours, or the transport's own.
    ///
    /// On Linux, requests on your session go through a companion session made once for it, with
    /// a copy of its configuration, because swift-corelibs-foundation reports a task's body only
    /// to its session's delegate (see Docs/Linux.md).
    public let session: URLSession

    /// The session whose tasks carry the requests: ``session``, or on Linux its companion.
    private let sendingSession: URLSession
    private let owner: SessionOwner?
    /// The capitalized names of this transport's request headers.
    private let headerNames = HeaderNameCase()
    /// Whether the session's configuration sends an `Accept` field of its own
    /// (`httpAdditionalHeaders`), which a request's own `Accept` would replace.
    package let configurationSendsAccept: Bool
    /// The cookie storage whose cookies the transport puts on requests itself (on Linux), or
    /// `nil`.
    let cookieStorage: HTTPCookieStorage?
    #if canImport(FoundationNetworking)
        /// The jar that takes in the cookies each response and redirect sets, within
        /// ``CookiePolicy``'s limits, or `nil` when the configuration stores none: on Linux the
        /// session Kilo sends with stores none itself (see `URLSessionConfiguration.preparedForKilo()`).
        let cookieJar: CookieJar?
    #endif
    /// How the body of a response waits for a slow reader.
    let bodyPolicy: BodyBuffer.Policy
    /// The identifier of a background session's configuration, which cannot carry requests.
    private let backgroundIdentifier: String?

    /// Creates a transport that sends requests with your session, as it is.
    ///
    /// A request without a timeout of its own gets the session's `timeoutIntervalForRequest`.
    ///
    /// Once you invalidate the session (`finishTasksAndInvalidate()`, `invalidateAndCancel()`),
    /// stop sending with the transport: making a task in an invalidated session traps, on Linux
    /// as on Apple platforms. Requests already in flight end with their outcome, or with
    /// `URLError.cancelled`.
    ///
    /// - Parameter session: The session that sends requests. Keep one session for many requests:
    ///   it reuses connections.
    public init(session: URLSession = .shared) {
        #if canImport(FoundationNetworking)
            self.init(session: session, sendingWith: session.kiloCompanion, owner: nil, as: session.configuration)
        #else
            self.init(session: session, sendingWith: session, owner: nil, as: session.configuration)
        #endif
    }

    /// Creates a transport with a session of its own.
    ///
    /// The session lives as long as the transport (and its copies); then it finishes its tasks
    /// and is invalidated. Keep one transport for many requests: it reuses connections. On
    /// Linux, prefer an `.ephemeral` configuration: `.default` keeps cookies in a file that
    /// every program built in a folder of the same name shares.
    ///
    /// - Parameter configuration: The session's configuration, such as `.ephemeral`.
    public init(configuration: URLSessionConfiguration) {
        let owner = SessionOwner(configuration: configuration)
        self.init(session: owner.session, sendingWith: owner.session, owner: owner, as: configuration)
    }

    /// Creates a transport for `session`, whose requests go through `sendingSession`, which keeps
    /// `owner` alive, configured as the caller gave `configuration` (a session that Kilo makes
    /// has a copy prepared for it, which stores no cookies itself, say).
    private init(
        session: URLSession,
        sendingWith sendingSession: URLSession,
        owner: SessionOwner?,
        as configuration: URLSessionConfiguration
    ) {
        self.session = session
        self.sendingSession = sendingSession
        self.owner = owner
        self.configurationSendsAccept = Self.sendsAccept(configuration)
        self.backgroundIdentifier = configuration.identifier
        #if canImport(FoundationNetworking)
            self.cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
            self.cookieJar = CookieJar(receivingFor: configuration, isStoredBySession: false)
            self.bodyPolicy = .spilling
        #else
            self.cookieStorage = nil
            self.bodyPolicy = .pausing
        #endif
    }

    /// Whether `configuration`'s `httpAdditionalHeaders` has an `Accept` field, in any case.
    private static func sendsAccept(_ configuration: URLSessionConfiguration) -> Bool {
        configuration.httpAdditionalHeaders?.keys.contains { ($0.base as? String)?.lowercased() == "accept" } ?? false
    }

    /// Sends a request with the session and returns its response as soon as its status and
    /// headers arrive.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status code, its body still arriving.
    /// - Throws: ``RequestError`` for a request that cannot be sent (nothing is sent; see
    ///   ``TransportRequest/validate()``), `URLError(.fileDoesNotExist)` for a file body that is
    ///   missing, unreadable or not a regular file (nothing is sent), or the `URLError` the
    ///   session reports.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try await stream(request, consuming: .stream())
    }

    /// Sends a request to be read as `consumption` says, and returns its response as soon as its
    /// status and headers arrive, with the limits of `consumption` set on its body before any of
    /// it arrives.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - consumption: How the response will be read.
    /// - Returns: The response, whatever its status code, its body still arriving.
    /// - Throws: What ``stream(_:)`` throws.
    public func stream(_ request: TransportRequest, consuming consumption: ResponseConsumption) async throws
        -> StreamedResponse
    {
        try request.validate()
        try request.checkFileBody()
        if let backgroundIdentifier {
            throw RequestError.backgroundSession(backgroundIdentifier)
        }
        let transfer = SessionTransfer(
            request,
            sending: makeURLRequest(for: request),
            consuming: consumption,
            with: self
        )
        return try await withTaskCancellationHandler {
            try await transfer.run()
        } onCancel: {
            transfer.cancel()
        }
    }

    /// The `URLRequest` for `request`, with the session's timeout when it has none of its own,
    /// so that Apple's 60-second default for a new `URLRequest` does not replace it.
    private func makeURLRequest(for request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(request, headerNames: headerNames)
        if request.timeoutInterval == nil {
            urlRequest.timeoutInterval = min(
                session.configuration.timeoutIntervalForRequest,
                TransportRequest.longestTimeout
            )
        }
        #if canImport(FoundationNetworking)
            urlRequest = urlRequest.preparedForLinux(cookiesFrom: cookieStorage, keeping: request.headers["Cookie"])
        #endif
        return urlRequest
    }

    /// Makes a task that sends `urlRequest` for `transfer`, with the transfer as its delegate, or
    /// returns `nil` when it would replace one (a redirect or a resend Kilo sends on a new task)
    /// and the session has been invalidated meanwhile, where a new task would trap.
    ///
    /// - Throws: On Linux, the error of a file body that can no longer be sent as it was checked
    ///   (see `FileBodyStream`).
    func makeTask(
        sending urlRequest: URLRequest,
        for transfer: SessionTransfer,
        replacing: Bool
    ) throws -> URLSessionTask? {
        guard !replacing || !session.isInvalidated else { return nil }
        let task: URLSessionTask
        if case .file(let file) = transfer.request.body {
            #if canImport(FoundationNetworking)
                // The path as given, so that an error names it as every other does; opening it
                // follows a symbolic link.
                task = try sendingSession.uploadTask(
                    with: urlRequest,
                    fromFile: file,
                    length: transfer.fileBodySize,
                    of: transfer.request
                )
            #else
                // The file a symbolic link names, whose size the request announces.
                task = sendingSession.uploadTask(with: urlRequest, fromFile: file.resolvingSymlinksInPath())
            #endif
        } else {
            task = sendingSession.dataTask(with: urlRequest)
        }
        task.delegate = transfer
        return task
    }
}

/// Owns a session, and invalidates it when the last transport that uses it goes away.
private final class SessionOwner: Sendable {
    let session: URLSession

    init(configuration: URLSessionConfiguration) {
        #if canImport(FoundationNetworking)
            // Its events go through the router to each task's transfer (see SessionRouter).
            session = URLSession(
                configuration: configuration.preparedForKilo(),
                delegate: SessionRouter.shared,
                delegateQueue: ImmediateOperationQueue()
            )
        #else
            session = URLSession(configuration: configuration)
        #endif
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
