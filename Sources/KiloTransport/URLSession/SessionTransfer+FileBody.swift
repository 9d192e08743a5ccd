import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionTransfer {
    /// The file a request's body comes from and the size it had when the request started, which
    /// the session announced as the body's `Content-Length`; `nil` for other bodies.
    var fileBody: (url: URL, size: Int64)? {
        guard case .file(let url) = request.body, let fileBodySize else { return nil }
        return (url, fileBodySize)
    }

    /// Whether the body's file no longer has the size the request announced.
    func fileBodyChanged() -> Bool {
        guard let fileBody else { return false }
        return FileManager.default.sizeOfItem(at: fileBody.url.resolvingSymlinksInPath()) != fileBody.size
    }

    /// Stops a request whose body's file changed size while it was sent: a file that grew would
    /// send bytes past the `Content-Length` (which a server reads as another request), one that
    /// shrank would leave the server waiting for bytes that never come.
    func failForChangedFile(_ task: URLSessionTask) {
        guard let fileBody else { return }
        let error = RequestError.bodyFileChanged(fileBody.url.path)
        _ = lock.withLock { state.complete(task) }
        Self.cancelAsynchronously(task)
        failWaitingCaller(error)
    }

    /// Checks the body's file once a second while it is being sent, so that one that shrinks
    /// fails the request at once rather than after its timeout; the watch ends with the upload.
    func watchFileBody(of task: URLSessionTask) {
        guard fileBody != nil else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self, weak task] in
            guard let self, let task, self.lock.withLock({ self.state.isCurrent(task) }),
                self.lock.withLock({ self.state.phase == .waitingForResponse })
            else { return }
            if self.fileBodyChanged() {
                self.failForChangedFile(task)
            } else {
                self.watchFileBody(of: task)
            }
        }
    }
}
