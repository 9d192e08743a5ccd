import Foundation

extension DispatchQueue {
    /// Whether this is the main queue.
    ///
    /// On Linux, `DispatchQueue.main` is a new object each time, so this compares labels, which
    /// makes two strings and a queue object: work it out once, not per request.
    package var isMainQueue: Bool {
        label == DispatchQueue.main.label
    }
}
