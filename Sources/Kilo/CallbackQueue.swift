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
}
