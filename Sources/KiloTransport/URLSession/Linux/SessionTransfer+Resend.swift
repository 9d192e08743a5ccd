import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: a body that cannot be rewound.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): when the connection libcurl
    // reused was closed before any response (the server's keep-alive timeout ran out just as the
    // request went out), libcurl sends the request again on a new connection and asks to rewind
    // the body. corelibs cannot rewind a body from Data, and asks the delegate for a new stream:
    // without one it reports success, and the new connection gets the headers, with their
    // Content-Length, and no body, so the request waits out its whole timeout.
    // Tests: FaultTests (a keep-alive connection closed under a request; a POST delivered once).
    // Remove when corelibs rewinds data and file bodies.
    extension SessionTransfer {
        /// Sends an idempotent request again on a new task, as libcurl meant to; a `POST` or
        /// `PATCH`, which the server may have acted on, fails with
        /// `URLError.networkConnectionLost` instead, as `AsyncHTTPClientTransport` does.
        func resendOnLinux(replacing old: URLSessionTask) {
            // Not on this thread: it is the session's, which making a task waits for.
            DispatchQueue.global().async { [self] in
                switch lock.withLock({ state.replace(old, forRedirect: false) }) {
                case .ignore:
                    return
                case .proceed where request.method.isIdempotent:
                    old.cancel()  // what it still reports is ignored
                    startTask(sending: lock.withLock { currentRequest })
                case .proceed, .fail:
                    fail(URLError(.networkConnectionLost))
                    old.cancel()
                }
            }
        }
    }
#endif
