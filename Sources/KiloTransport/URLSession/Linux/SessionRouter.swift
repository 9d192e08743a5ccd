import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: task delegates do not receive a task's response, body or completion.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a task made without a completion
    // handler reports its response, its body's chunks, its upload progress and its completion
    // only to its session's delegate, never to the task's own `delegate`. Every session Kilo sends with on Linux therefore has this
    // router as its delegate, which hands each event to the task's own delegate, the transfer.
    // Tests: every URLSessionTransport suite (a request would never end without it).
    // Remove when corelibs calls task delegates for every event, as Apple's URLSession does.
    final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
        /// The router of every session Kilo sends with; it keeps no state.
        static let shared = SessionRouter()

        private static func transfer(of task: URLSessionTask) -> SessionTransfer? {
            task.delegate as? SessionTransfer
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let transfer = Self.transfer(of: dataTask) else {
                completionHandler(.allow)
                return
            }
            transfer.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            Self.transfer(of: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didSendBodyData bytesSent: Int64,
            totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            Self.transfer(of: task)?.urlSession(
                session,
                task: task,
                didSendBodyData: bytesSent,
                totalBytesSent: totalBytesSent,
                totalBytesExpectedToSend: totalBytesExpectedToSend
            )
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            Self.transfer(of: task)?.urlSession(session, task: task, didCompleteWithError: error)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard let transfer = Self.transfer(of: task) else {
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
            transfer.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard let transfer = Self.transfer(of: task) else {
                completionHandler(request)
                return
            }
            transfer.urlSession(
                session,
                task: task,
                willPerformHTTPRedirection: response,
                newRequest: request,
                completionHandler: completionHandler
            )
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
        ) {
            guard let transfer = Self.transfer(of: task) else {
                completionHandler(nil)
                return
            }
            transfer.urlSession(session, task: task, needNewBodyStream: completionHandler)
        }
    }
#endif
