import Foundation
import Kilo

/// A transport that answers every request with one response, from a dispatch queue and
/// without a Swift task, as ``URLSessionTransport`` does: a `CallbackTransport`, so callback
/// requests take Kilo's path without a task.
///
/// A request waits `delay` before it is answered; cancelling it before then answers
/// `URLError(.cancelled)` at once. With `reportsTwice`, it misbehaves: every request's
/// completion is called twice. With `completionMayTakeTime`, it says its queue may map
/// responses, as a caller's session's delegate queue may.
final class QueueTransport: CallbackTransport, @unchecked Sendable {
    // `@unchecked Sendable`: `started` is only read and written under `lock`.
    private let response: TransportResponse
    private let delay: DispatchTimeInterval
    private let reportsTwice: Bool
    let completionMayTakeTime: Bool
    private let queue = DispatchQueue(label: "kilo.tests.queue-transport")
    private static let queueKey = DispatchSpecificKey<Bool>()
    private let lock = NSLock()
    private var started = 0

    init(
        statusCode: Int = 200,
        body: String,
        delay: DispatchTimeInterval = .never,
        reportsTwice: Bool = false,
        completionMayTakeTime: Bool = false
    ) {
        response = TransportResponse(
            statusCode: statusCode,
            headers: ["Content-Type": "text/plain"],
            body: Data(body.utf8)
        )
        self.delay = delay
        self.reportsTwice = reportsTwice
        self.completionMayTakeTime = completionMayTakeTime
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// Whether the calling code runs on the queue that answers requests.
    static var isAnswering: Bool {
        DispatchQueue.getSpecific(key: queueKey) == true
    }

    /// How many requests went through `start(_:completion:)`.
    var startedCount: Int {
        lock.withLock { started }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        response
    }

    func start(
        _ request: TransportRequest,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportTask {
        lock.withLock { started += 1 }
        if reportsTwice {
            let response = self.response
            queue.asyncAfter(deadline: .now() + (delay == .never ? .seconds(0) : delay)) {
                completion(.success(response))
                completion(.success(response))
            }
            return TransportTask {}
        }
        let once = Once(completion)
        let response = self.response
        if delay == .never {
            queue.async { once.call(.success(response)) }
        } else {
            queue.asyncAfter(deadline: .now() + delay) { once.call(.success(response)) }
        }
        return TransportTask { [queue] in queue.async { once.call(.failure(URLError(.cancelled))) } }
    }

    /// Calls a completion the first time only.
    private final class Once: @unchecked Sendable {
        // `@unchecked Sendable`: `completion` is only read and written under `lock`.
        private let lock = NSLock()
        private var completion: (@Sendable (Result<TransportResponse, any Error>) -> Void)?

        init(_ completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
            self.completion = completion
        }

        func call(_ result: Result<TransportResponse, any Error>) {
            let completion = lock.withLock {
                defer { self.completion = nil }
                return self.completion
            }
            completion?(result)
        }
    }
}
