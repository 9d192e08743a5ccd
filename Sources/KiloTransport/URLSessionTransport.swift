import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``Transport`` that sends requests with a `URLSession`.
///
/// Data bodies are sent from memory; file bodies are streamed from disk by an upload task.
/// Cancelling the calling Swift task cancels the `URLSessionTask`, which then fails with
/// `URLError.cancelled`.
///
/// ```swift
/// let transport = URLSessionTransport(session: URLSession(configuration: .ephemeral))
/// let response = try await transport.send(TransportRequest(method: .get, url: url))
/// ```
public struct URLSessionTransport: Transport {
    /// The session that sends requests.
    public let session: URLSession

    /// Creates a transport.
    ///
    /// - Parameter session: The session that sends requests. Keep one session for many requests:
    ///   it reuses connections.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Sends a request with the session.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status code.
    /// - Throws: ``RequestError`` for an invalid header (nothing is sent), or the `URLError` the
    ///   session reports.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try request.headers.validate()
        let urlRequest = URLRequest(request)
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = makeTask(urlRequest, body: request.body) { data, response, error in
                    continuation.resume(with: Self.result(data: data, response: response, error: error))
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    private func makeTask(
        _ request: URLRequest,
        body: TransportRequest.Body?,
        completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionTask {
        if case .file(let fileURL) = body {
            return session.uploadTask(with: request, fromFile: fileURL, completionHandler: completion)
        }
        return session.dataTask(with: request, completionHandler: completion)
    }

    private static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<
        TransportResponse, any Error
    > {
        if let error {
            return .failure(error)
        }
        guard let response = response as? HTTPURLResponse else {
            return .failure(URLError(.badServerResponse))
        }
        return .success(TransportResponse(response, body: data ?? Data()))
    }
}

extension TransportResponse {
    /// Creates a response from an `HTTPURLResponse` and its body.
    ///
    /// - Parameters:
    ///   - response: The response's status and headers.
    ///   - body: The body.
    public init(_ response: HTTPURLResponse, body: Data) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        self.init(statusCode: response.statusCode, headers: headers, body: body)
    }
}

/// The `URLSessionTask` of one ``URLSessionTransport/send(_:)`` call, shared with its
/// cancellation handler, which may run before the task exists, at the same time, or after.
///
/// `@unchecked Sendable`: its two stored properties are only read and written under `lock`.
private final class TaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var isCancelled = false

    /// Resumes `task`, or cancels it at once if cancellation came first.
    func start(_ task: URLSessionTask) {
        let cancelled = lock.withLock {
            self.task = task
            return isCancelled
        }
        task.resume()
        if cancelled {
            Self.cancelAsynchronously(task)
        }
    }

    /// Cancels the task if it has started, or marks it to be cancelled when it starts.
    func cancel() {
        let task = lock.withLock {
            isCancelled = true
            return self.task
        }
        if let task {
            Self.cancelAsynchronously(task)
        }
    }

    /// Cancels off the calling thread: on Linux, `cancel()` racing the task's completion can
    /// deadlock when called from a thread that the session is waiting on.
    private static func cancelAsynchronously(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
