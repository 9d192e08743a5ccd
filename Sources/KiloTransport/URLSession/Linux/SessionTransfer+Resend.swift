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
    // Content-Length, and what is left of the body (none, for a body sent whole), so the request
    // waits out its whole timeout.
    // Tests: FaultTests (a keep-alive connection closed under a request; a POST delivered once).
    // Remove when corelibs rewinds data and file bodies.
    extension SessionTransfer {
        /// Sends an idempotent request again on a new task, as libcurl meant to; a `POST` or
        /// `PATCH`, which the server may have acted on, fails with
        /// `URLError.networkConnectionLost` instead, as `AsyncHTTPClientTransport` does. The old
        /// task is replaced at once, so that what it still reports is ignored, and a file body's
        /// stream stops, so that it sends no more.
        func resendOnLinux(replacing old: URLSessionTask) {
            let step = lock.withLock { state.replace(old, forRedirect: false) }
            guard step != .ignore else { return }
            stopFileBody(of: old)
            // Not on this thread: it is the session's, which making a task waits for.
            DispatchQueue.global().async { [self] in
                if step == .proceed, request.method.isIdempotent {
                    old.cancel()
                    startTask(sending: lock.withLock { currentRequest })
                } else {
                    fail(URLError(.networkConnectionLost))
                    old.cancel()
                }
            }
        }
    }
#endif
