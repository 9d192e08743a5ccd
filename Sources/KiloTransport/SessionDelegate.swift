import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a session that ``URLSessionTransport`` owns: it routes each task's events to
/// the ``SessionTransfer`` that started it.
///
/// `@unchecked Sendable`: `transfers` is private and only read and written under `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var transfers: [Int: SessionTransfer] = [:]

    /// Routes `task`'s events to `transfer`; call it before the task is resumed.
    func register(_ transfer: SessionTransfer, for task: URLSessionTask) {
        lock.withLock { transfers[task.taskIdentifier] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> SessionTransfer? {
        lock.withLock { transfers[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(for: task)?.request.progress?.reportSent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.append(data)
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        transfer(for: downloadTask)?.request.progress?.reportReceived(totalBytesWritten, of: totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        transfer(for: downloadTask)?.keepDownload(at: location)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        transfer.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = lock.withLock { transfers.removeValue(forKey: task.taskIdentifier) }
        transfer?.finish(body: Data(), response: task.response, error: error)
    }
}
