import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: how a redirect is followed.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a redirect that keeps the method
    // (a 307 or 308; a 301 or 302 of anything but a POST) is followed without the body, so the
    // server gets the method, the Content-Type and no body; a 303's GET keeps Content-Type and
    // Content-Length; the request a delegate returns goes without the cookies the redirect's own
    // response set; and answering a redirect after the task was cancelled traps ("Received
    // callback for HTTP redirection, but we're not waiting for it").
    // Tests: URLSessionTransportTests (redirects keep the body, drop credentials across origins),
    // URLSessionTransport+CancellationTests (a cancel racing a redirect), the cookie suites.
    // Remove when corelibs resends bodies on redirects and tolerates late answers.
    extension SessionTransfer {
        /// Follows a redirect on Linux: without the fields a body-less request must not carry,
        /// after your session's delegate, if any, has decided, with the session's cookies for the
        /// new URL, and with the body on a new task where the session would drop it. `nil`
        /// ends the request at the redirect's response.
        func followOnLinux(
            _ redirected: URLRequest?,
            of task: URLSessionTask,
            after response: HTTPURLResponse,
            in session: URLSession,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            storesCookies(of: response, thenDeliver: false)  // before the redirected request chooses its own
            guard let answer = answeringRedirect(of: task, with: completionHandler) else { return }
            guard let request = redirected?.droppingBodyFieldsWithoutABody() else {
                answer(nil)  // not followed: the redirect's response is the answer
                return
            }
            guard let yours = callersDelegate else {
                follow(settingCookies(on: request), from: task, answer: answer)
                return
            }
            // On your session's queue, and with your session, as without Kilo.
            let session = transport.session
            session.delegateQueue.addOperation {
                yours.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) {
                    decided in
                    // A `Cookie` that your delegate set on the request counts as the caller's own.
                    let cookie = decided?.value(forHTTPHeaderField: "Cookie")
                    let yourCookie = cookie != request.value(forHTTPHeaderField: "Cookie") ? cookie : nil
                    let followed = decided.map { self.settingCookies(on: $0, keeping: yourCookie) }
                    self.follow(followed, from: task, answer: answer)
                }
            }
        }

        /// The answer to give `task`'s redirect, or `nil` when the task is being cancelled and
        /// must get none: its cancellation ends it. A ``cancel()`` that comes while the answer is
        /// awaited (your delegate may take its time) cancels the task in place of the answer.
        private func answeringRedirect(
            of task: URLSessionTask,
            with completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) -> (@Sendable (URLRequest?) -> Void)? {
            guard task.state == .running else { return nil }
            switch lock.withLock({ state.beginRedirect(of: task) }) {
            case .withhold:
                return nil
            case .answerUntracked:
                return { redirected in
                    if task.state == .running {
                        completionHandler(redirected)
                    }
                }
            case .answer:
                return { [self] redirected in
                    let cancelsInstead = lock.withLock { state.isCancelled }
                    if !cancelsInstead, task.state == .running {
                        // The session takes the answer onto its work queue here, ahead of any
                        // cancellation that starts after it.
                        completionHandler(redirected)
                    }
                    if lock.withLock({ state.endRedirect() }) {
                        Self.cancelAsynchronously(task)
                    }
                }
            }
        }

        /// `redirected` with the `Cookie` field the session's cookie storage gives its URL, or as
        /// it is when the transport sets no cookies itself.
        private func settingCookies(on redirected: URLRequest, keeping yourCookie: String? = nil) -> URLRequest {
            guard let storage = transport.cookieStorage else { return redirected }
            return redirected.settingCookies(from: storage, keeping: yourCookie ?? request.headers["Cookie"])
        }

        /// Follows a redirect to `redirected`, or, for `nil`, ends at the redirect's response. A
        /// redirect that keeps the method of a request with a body is sent on a new task, with
        /// the body. Every redirect, on this task or a new one, has been counted already by the
        /// transfer's `RedirectPolicy.Chain`, which fails the request with
        /// `URLError.httpTooManyRedirects` past `RedirectPolicy.maximumRedirects` or at a loop;
        /// `TransferState.replace(_:forRedirect:)` counts nothing here.
        private func follow(
            _ redirected: URLRequest?,
            from old: URLSessionTask,
            answer: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard var redirected, losesBody(redirected) else {
                answer(redirected)
                return
            }
            if case .data(let data) = request.body {
                redirected.httpBody = data
            }
            // A redirect is never refused here (the chain has counted it): the request goes on,
            // or, for a task no longer current or a request over or cancelled, nothing happens.
            let proceeds = lock.withLock {
                let proceeds = state.replace(old, forRedirect: true) == .proceed
                if proceeds {
                    currentRequest = redirected
                }
                return proceeds
            }
            answer(nil)  // the old task ends at the redirect's response, which is ignored
            guard proceeds else { return }
            // Not on this thread: it may be the session's, which making a task waits for.
            let next = redirected
            DispatchQueue.global().async { self.startTask(sending: next) }
        }

        /// Whether the session would send `redirected` without the body it must carry.
        private func losesBody(_ redirected: URLRequest) -> Bool {
            switch request.body {
            case .data(let data):
                return !data.isEmpty && redirected.httpMethod == request.method.rawValue
            case .file:
                return redirected.httpMethod == request.method.rawValue
            case nil:
                return false
            }
        }
    }

    extension SessionTransfer {
        /// Takes in the cookies `response` sets, through the transport's ``CookieJar``, within
        /// its policy. A response to deliver is delivered once they are stored, off the calling
        /// thread (the session's work queue, which every session shares, where a persistent
        /// storage would rewrite its file for each cookie); a redirect's are stored at once, before
        /// the redirected request chooses its cookies.
        ///
        /// - Returns: Whether the cookies are being stored and the response will be delivered
        ///   then; `false` when there is nothing to store, and the caller delivers the response.
        @discardableResult
        func storesCookies(of response: HTTPURLResponse, thenDeliver: Bool) -> Bool {
            guard response.value(forHTTPHeaderField: "Set-Cookie") != nil, let jar = transport.cookieJar else {
                return false
            }
            guard thenDeliver else {
                jar.receive(response)
                return false
            }
            DispatchQueue.global().async {
                jar.receive(response)
                self.deliver(response)
            }
            return true
        }
    }

    extension URLRequest {
        /// Without the spent stream of a file body and its blank `Transfer-Encoding` (see
        /// `FileBodyStream`; a redirect that keeps the body gets a new one), and without
        /// `Content-Type` and `Content-Length` when a redirect turned the request into a `GET` or
        /// `HEAD`, which has no body for them to describe.
        fileprivate func droppingBodyFieldsWithoutABody() -> URLRequest {
            var request = self
            if request.httpBodyStream != nil {
                request.httpBodyStream = nil
                request.setValue(nil, forHTTPHeaderField: "Transfer-Encoding")
            }
            guard httpMethod == "GET" || httpMethod == "HEAD" else { return request }
            request.setValue(nil, forHTTPHeaderField: "Content-Type")
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
            return request
        }
    }
#endif
