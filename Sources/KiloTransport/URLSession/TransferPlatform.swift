import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``SessionTransfer`` does at the task events where a platform's URLSession departs from
/// the behaviour Apple documents: ``DocumentedURLSession`` follows that documentation, and Linux's
/// value (`LinuxURLSession`, under `URLSession/Linux/`) works around swift-corelibs-foundation.
/// The transfer asks ``transferPlatform``, chosen once, here, and reads as if every platform were
/// the documented one.
protocol TransferPlatform: Sendable {
    /// Whether `response` is held back rather than delivered: on Linux, one that carries an
    /// authentication challenge still to be answered.
    func holds(_ response: URLResponse, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool

    /// Whether `data` is kept back rather than appended to the body: on Linux, the body of a
    /// response held for a challenge.
    func keeps(_ data: Data, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool

    /// Whether `response` is delivered later, once the cookies it sets are stored (on Linux,
    /// where Kilo stores them itself); `false` when the caller delivers it now.
    func deliversAfterStoringCookies(of response: HTTPURLResponse, in transfer: SessionTransfer) -> Bool

    /// The error `task` ended with, as the transfer reports it: on Linux, the changed file that
    /// made a file body's stream fail, in place of libcurl's error.
    func error(_ error: (any Error)?, endingUncancelled task: URLSessionTask, in transfer: SessionTransfer)
        -> (any Error)?

    /// A response held back for a challenge, with its body, to deliver when `task` ends without
    /// one of its own: on Linux, one whose challenge was declined.
    func heldResponse(
        of task: URLSessionTask,
        endingWith error: (any Error)?,
        isCancelled: Bool,
        in transfer: SessionTransfer
    ) -> (HTTPURLResponse, Data)?

    /// Follows `redirected` (`nil`: the redirect is not followed), asking your session's
    /// delegate as URLSession would.
    func follow(
        _ redirected: URLRequest?,
        of task: URLSessionTask,
        after response: HTTPURLResponse,
        in session: URLSession,
        for transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    )

    /// Answers an authentication challenge, asking your session's delegate as URLSession would.
    func answer(
        _ challenge: URLAuthenticationChallenge,
        of task: URLSessionTask,
        in session: URLSession,
        for transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    )

    /// Whether `delegate` is one Kilo gave a session (on Linux, its router), not yours.
    func isKilos(_ delegate: any URLSessionTaskDelegate) -> Bool

    /// The session asked `task` for a new body stream, which Kilo does not give: on Linux, the
    /// request goes again on a new task.
    func didRefuseNewBodyStream(for task: URLSessionTask, in transfer: SessionTransfer)
}

#if canImport(FoundationNetworking)
    /// This platform's ``TransferPlatform``.
    let transferPlatform: any TransferPlatform = LinuxURLSession()
#else
    /// This platform's ``TransferPlatform``.
    let transferPlatform: any TransferPlatform = DocumentedURLSession()
#endif
