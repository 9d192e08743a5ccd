import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession as Apple documents it: a transfer needs nothing beyond following a redirect with
/// the credentials it may carry and asking your session's delegate, if it has one, about
/// redirects and challenges, as URLSession would ask it without Kilo.
struct DocumentedURLSession: TransferPlatform {
    func holds(_ response: URLResponse, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool {
        false
    }

    func keeps(_ data: Data, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool {
        false
    }

    func deliversAfterStoringCookies(of response: HTTPURLResponse, in transfer: SessionTransfer) -> Bool {
        false  // the session stores them itself
    }

    func error(_ error: (any Error)?, endingUncancelled task: URLSessionTask, in transfer: SessionTransfer)
        -> (any Error)?
    {
        error
    }

    func heldResponse(
        of task: URLSessionTask,
        endingWith error: (any Error)?,
        isCancelled: Bool,
        in transfer: SessionTransfer
    ) -> (HTTPURLResponse, Data)? {
        nil
    }

    func follow(
        _ redirected: URLRequest?,
        of task: URLSessionTask,
        after response: HTTPURLResponse,
        in session: URLSession,
        for transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let redirected else {
            completionHandler(nil)  // not followed: the redirect's response is the answer
            return
        }
        guard let yours = transfer.callersDelegate else {
            completionHandler(redirected)
            return
        }
        #if canImport(Darwin)
            // An optional requirement there: a delegate without it follows the redirect.
            yours.urlSession?(
                session,
                task: task,
                willPerformHTTPRedirection: response,
                newRequest: redirected,
                completionHandler: completionHandler
            ) ?? completionHandler(redirected)
        #else  // this branch as Scripts/check-apple-branches.sh builds it on Linux
            yours.urlSession(
                session,
                task: task,
                willPerformHTTPRedirection: response,
                newRequest: redirected,
                completionHandler: completionHandler
            )
        #endif
    }

    func answer(
        _ challenge: URLAuthenticationChallenge,
        of task: URLSessionTask,
        in session: URLSession,
        for transfer: SessionTransfer,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let yours = transfer.callersDelegate else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        #if canImport(Darwin)
            // An optional requirement there: a delegate without it leaves the default handling.
            yours.urlSession?(session, task: task, didReceive: challenge, completionHandler: completionHandler)
                ?? completionHandler(.performDefaultHandling, nil)
        #else  // this branch as Scripts/check-apple-branches.sh builds it on Linux
            yours.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        #endif
    }

    func isKilos(_ delegate: any URLSessionTaskDelegate) -> Bool {
        false  // a session Kilo owns has none
    }

    func didRefuseNewBodyStream(for task: URLSessionTask, in transfer: SessionTransfer) {}
}
