import Foundation
import Kilo

/// What one callback-style `invoke` call delivered to its result handler.
struct CallbackOutcome<Value: Sendable>: Sendable {
    /// The handle `invoke` returned; `nil` when bad input stopped the request.
    var task: RequestTask?
    /// What the result handler received first.
    var result: Result<Value, any Error>
    /// The label of the queue the handler ran on: `"main"` for the main queue, a
    /// ``CallbackQueues/make(_:)`` queue's label, or `nil` for any other queue.
    ///
    /// This is not `Thread.isMainThread`: on Linux the test runner drains the main queue from
    /// another thread after `dispatchMain()`.
    var queueLabel: String?
    /// How many times the handler has been called so far; read it again later to catch a second call.
    var handlerCalls: Protected<Int>

    /// The value, or the error the handler received.
    func get() throws -> Value {
        try result.get()
    }

    /// The error the handler received, or `nil` on success.
    var error: (any Error)? {
        if case .failure(let error) = result { return error }
        return nil
    }
}

/// Starts a callback-style request and waits for its result handler.
///
/// ```swift
/// let outcome: CallbackOutcome<[Int]> = try await callback {
///     proxy.invoke(.get, path: "fibonacci", arguments: ["count": 5], resultHandler: $0)
/// }
/// ```
///
/// - Parameter start: Calls `invoke`, passing the handler it is given.
/// - Returns: The handle and the first result; later calls are only counted.
/// - Throws: What `start` throws (an `invoke` with a body throws `EncodingError`).
func callback<Value: Sendable>(
    _ start: (@escaping WebServiceProxy.ResultHandler<Value>) throws -> RequestTask?
) async throws -> CallbackOutcome<Value> {
    let calls = Protected(0)
    var task: RequestTask?
    let delivery = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Delivery<Value>, any Error>) in
        do {
            task = try start { result in
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                guard call == 1 else { return }  // A second call is a bug the test reports; don't crash.
                continuation.resume(
                    returning: Delivery(
                        result: result,
                        queueLabel: DispatchQueue.getSpecific(key: CallbackQueues.labelKey)))
            }
        } catch {
            continuation.resume(throwing: error)
        }
    }
    return CallbackOutcome(
        task: task, result: delivery.result, queueLabel: delivery.queueLabel, handlerCalls: calls)
}

private struct Delivery<Value: Sendable>: Sendable {
    var result: Result<Value, any Error>
    var queueLabel: String?
}

/// Serial queues for result handlers that can tell when code runs on them.
enum CallbackQueues {
    /// The key under which each queue made here stores its label; the main queue's is `"main"`.
    static let labelKey: DispatchSpecificKey<String> = {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        return key
    }()

    /// Makes a serial queue whose label ``CallbackOutcome/queueLabel`` reports.
    ///
    /// - Parameter label: The queue's label.
    /// - Returns: The queue.
    static func make(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: labelKey, value: label)
        return queue
    }
}

/// A value that any thread may read and write, one at a time.
///
/// `@unchecked Sendable`: `value` is private and only touched while `lock` is held.
final class Protected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// The current value.
    var current: Value {
        withLock { $0 }
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
