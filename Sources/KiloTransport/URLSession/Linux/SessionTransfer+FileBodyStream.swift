import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: what a file body's stream tells the transfer.
    //
    // Behaviour handled (swift-corelibs-foundation 6.3.1): a body stream that fails aborts the
    // transfer with libcurl's error 42, which says nothing of why; and a body sent again after
    // a rewind the session cannot make goes on from where the stream stood. See
    // FileBodyStream.swift, why a file goes as a stream at all.
    // Tests: ChangingFileBodyTests, FaultTests (a reused connection reset under a file body).
    // Remove with FileBodyStream.swift.
    extension SessionTransfer {
        /// ``RequestError/bodyFileChanged(_:)`` when `task`'s file body stream failed because
        /// the file changed size, which is then why the task failed; `nil` otherwise.
        func bodyFileChange(of task: URLSessionTask) -> RequestError? {
            guard let fileBody, let stream = task.originalRequest?.httpBodyStream as? FileBodyStream,
                stream.foundFileChanged
            else { return nil }
            return .bodyFileChanged(fileBody.url.path)
        }

        /// Ends `task`'s file body stream, if it has one, so that the session sends no more of
        /// it: none from the middle of the file on a connection where the request begins again.
        /// Called on the session's work queue, where the stream is read.
        func stopFileBody(of task: URLSessionTask) {
            (task.originalRequest?.httpBodyStream as? FileBodyStream)?.stop()
        }
    }
#endif
