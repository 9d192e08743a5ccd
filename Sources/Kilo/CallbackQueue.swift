import Foundation
import KiloTransport

/// A proxy's callback queue, and whether it is the main queue, worked out once when it is set
/// (see `DispatchQueue.isMainQueue`): not something every request should pay for.
struct CallbackQueue: Sendable {
    /// The queue that result handlers run on.
    let queue: DispatchQueue
    /// Whether `queue` is the main queue, where Kilo never maps a response.
    let isMain: Bool

    /// Wraps `queue`, and finds out whether it is the main queue.
    ///
    /// - Parameter queue: The queue that result handlers run on.
    init(_ queue: DispatchQueue) {
        self.queue = queue
        isMain = queue.isMainQueue
    }

    /// Whether the calling code runs on the main queue, or on a queue that targets it (and so
    /// runs on the main thread), which `isMain` cannot tell: a queue's target cannot be read.
    static var isServingMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    /// A key that only the main queue has a value for; `getSpecific` finds it from any queue
    /// that targets the main queue too.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}
