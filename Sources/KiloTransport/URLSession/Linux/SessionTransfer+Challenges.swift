import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: authentication challenges no one answers.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a 401 with a `Basic` challenge
    // that names a realm never completes under default handling (the session waits for
    // credentials no one supplies); `.useCredential` without a credential traps; a credential
    // for a challenge from another origin than the task's first, after a redirect, is sent to the
    // origin the task started at; and the challenging response reaches the delegate, body and
    // all, before the challenge does.
    // Tests: ErrorTests and URLSessionTransport+SessionDelegateTests (a 401 with a challenge is
    // returned; your delegate's answers).
    // Remove when corelibs completes unanswered challenges (fixed upstream after 6.3.1).
    extension SessionTransfer {
        /// Asks your session's delegate, if it has one, and passes on an answer the session can
        /// take; otherwise declines the challenge, and the transfer returns the response that
        /// carried it, with its status and headers and an empty body.
        func answerOnLinux(
            _ challenge: URLAuthenticationChallenge,
            of task: URLSessionTask,
            in session: URLSession,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard let yours = callersDelegate else {
                Self.decline(completionHandler)
                return
            }
            // On your session's queue, and with your session, as without Kilo.
            let session = transport.session
            session.delegateQueue.addOperation {
                yours.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
                    if Self.passesOn(disposition, credential, to: challenge, of: task) {
                        completionHandler(disposition, credential)
                    } else {
                        Self.decline(completionHandler)
                    }
                }
            }
        }

        /// Holds back a response that carries a challenge, which corelibs reports before the
        /// challenge: the response that counts is the one after the answer, or this one if no
        /// one answers.
        ///
        /// - Returns: Whether the response was held.
        func holdsForChallenge(_ response: URLResponse, of task: URLSessionDataTask) -> Bool {
            guard let response = response as? HTTPURLResponse else { return false }
            let field = response.statusCode == 401 ? "WWW-Authenticate" : "Proxy-Authenticate"
            guard [401, 407].contains(response.statusCode), response.value(forHTTPHeaderField: field) != nil else {
                lock.withLock { challenged = nil }
                return false
            }
            return lock.withLock {
                guard state.isCurrent(task), state.phase == .waitingForResponse else { return false }
                challenged = (response, Data())
                return true
            }
        }

        /// Keeps the body of a held response, up to 1 MiB.
        ///
        /// - Returns: Whether the chunk belongs to a held response.
        func keepsChallengedBody(_ data: Data, of task: URLSessionDataTask) -> Bool {
            lock.withLock {
                guard var held = challenged, state.isCurrent(task), state.phase == .waitingForResponse else {
                    return false
                }
                held.body.append(data.prefix(max(0, ResponseConsumption.standardErrorBodyLimit - held.body.count)))
                challenged = held
                return true
            }
        }

        /// Whether the session can take your delegate's answer: not default handling, not
        /// `.useCredential` without a credential, and not a credential for another origin than
        /// the task's first.
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
                return Origin(challenged)?.contains(original) == true
            default:
                return true
            }
        }

        /// Declines a challenge off the calling thread: declining cancels the task, which waits
        /// for the session's work queue, and this thread may be that queue.
        private static func decline(
            _ completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
        }
    }
#endif
