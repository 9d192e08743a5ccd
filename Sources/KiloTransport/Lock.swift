import Foundation

#if canImport(Synchronization) && !canImport(Darwin)
    import Synchronization
#endif

/// A mutual-exclusion lock for Kilo's per-request state.
///
/// On Linux (wherever the `Synchronization` module is there without Apple's availability rules)
/// it is a `Mutex` stored inside the lock itself: making one costs a single small allocation,
/// where an `NSLock` there costs an object, a separately allocated `pthread_mutex_t` and its
/// initialization, and Kilo makes several locks for every request. On Apple platforms, whose
/// deployment targets predate `Mutex`, it is an `NSLock`.
///
/// `@unchecked Sendable`: it holds nothing but the lock itself.
package final class Lock: @unchecked Sendable {
    #if canImport(Synchronization) && !canImport(Darwin)
        private let mutex = Mutex<Void>(())
    #else
        private let lock = NSLock()
    #endif

    /// Creates an unlocked lock.
    package init() {}

    /// Runs `body` while holding the lock.
    ///
    /// - Parameter body: The work to do; it must not take the same lock again.
    /// - Returns: What `body` returns.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if canImport(Synchronization) && !canImport(Darwin)
            try mutex.withLock { _ in try body() }
        #else
            lock.lock()
            defer { lock.unlock() }
            return try body()
        #endif
    }
}
