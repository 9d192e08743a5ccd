import Foundation

#if canImport(Synchronization) && !canImport(Darwin)
    import Synchronization
#endif

/// A value that many threads may read and write, one at a time.
///
/// On Linux (wherever the `Synchronization` module is there without Apple's availability rules)
/// the value sits inside a `Mutex`, in the one object: making one costs a single small
/// allocation, where an `NSLock` there costs an object, a separately allocated
/// `pthread_mutex_t` and its initialization, and Kilo makes several locks for every request. On
/// Apple platforms, whose deployment targets predate `Mutex`, an `NSLock` guards it.
///
/// `@unchecked Sendable`: on Apple platforms `value` is private and only touched while `lock`
/// is held; on Linux the `Mutex` owns it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    #if canImport(Synchronization) && !canImport(Darwin)
        private let mutex: Mutex<Value>
    #else
        private let lock = NSLock()
        private var value: Value
    #endif

    /// Creates a value guarded by its own lock.
    ///
    /// - Parameter value: The initial value.
    package init(_ value: Value) {
        #if canImport(Synchronization) && !canImport(Darwin)
            mutex = Mutex(value)
        #else
            self.value = value
        #endif
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value; it must not use this `Locked` again.
    /// - Returns: What `body` returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Synchronization) && !canImport(Darwin)
            try mutex.withLock { value in try body(&value) }
        #else
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        #endif
    }
}

/// A lock that guards the state of the object that holds it, rather than a value of its own.
package typealias Lock = Locked<Void>

extension Locked where Value == Void {
    /// Creates an unlocked lock.
    package convenience init() {
        self.init(())
    }

    /// Runs `body` while holding the lock.
    ///
    /// - Parameter body: The work to do; it must not take the same lock again.
    /// - Returns: What `body` returns.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try withLock { _ in try body() }
    }
}
