import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: where a transfer departs from URLSession as Apple documents it.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): each of this value's answers
    // hands one event to the workaround that handles it, in the files beside this one: challenges
    // (SessionTransfer+Challenges.swift), cookies and redirects (SessionTransfer+Redirects.swift),
    // a file body's stream (SessionTransfer+FileBodyStream.swift), a body that cannot be rewound
    // (SessionTransfer+Resend.swift).
    // Tests: those files'.
    // Remove with the last of them; the transfer then takes `DocumentedURLSession`.
    struct LinuxURLSession: TransferPlatform {
        func holds(_ response: URLResponse, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool {
            transfer.holdsForChallenge(response, of: task)
        }

        func keeps(_ data: Data, of task: URLSessionDataTask, in transfer: SessionTransfer) -> Bool {
            transfer.keepsChallengedBody(data, of: task)
        }

        func deliversAfterStoringCookies(of response: HTTPURLResponse, in transfer: SessionTransfer) -> Bool {
            transfer.storesCookies(of: response, thenDeliver: true)
        }

        func error(_ error: (any Error)?, endingUncancelled task: URLSessionTask, in transfer: SessionTransfer)
            -> (any Error)?
        {
            transfer.bodyFileChange(of: task) ?? error
        }

        func heldResponse(
            of task: URLSessionTask,
            endingWith error: (any Error)?,
            isCancelled: Bool,
            in transfer: SessionTransfer
        ) -> (HTTPURLResponse, Data)? {
            // A challenge declined ends the task as cancelled, though nobody cancelled it.
            guard error == nil || (!isCancelled && (error as? URLError)?.code == .cancelled) else { return nil }
            return transfer.lock.withLock { transfer.challenged }
        }

        func follow(
            _ redirected: URLRequest?,
            of task: URLSessionTask,
            after response: HTTPURLResponse,
            in session: URLSession,
            for transfer: SessionTransfer,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            transfer.followOnLinux(
                redirected,
                of: task,
                after: response,
                in: session,
                completionHandler: completionHandler
            )
        }

        func answer(
            _ challenge: URLAuthenticationChallenge,
            of task: URLSessionTask,
            in session: URLSession,
            for transfer: SessionTransfer,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            transfer.answerOnLinux(challenge, of: task, in: session, completionHandler: completionHandler)
        }

        func isKilos(_ delegate: any URLSessionTaskDelegate) -> Bool {
            delegate is SessionRouter
        }

        func didRefuseNewBodyStream(for task: URLSessionTask, in transfer: SessionTransfer) {
            transfer.resendOnLinux(replacing: task)
        }
    }
#endif
