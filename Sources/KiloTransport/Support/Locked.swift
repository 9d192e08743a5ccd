import Foundation

#if canImport(Synchronization) && !canImport(Darwin)
    import Synchronization
#endif

/// A value that many threads may read and write, one at a time.
///
/// On Linux (wherever the `Synchronization` module is there without Apple's availability rules)
/// the lock is a `Mutex` inside the object: making one costs a single small allocation, where an
/// `NSLock` there costs an object, a separately allocated `pthread_mutex_t` and its
/// initialization, and Kilo makes several locks for every request. On Apple platforms, whose
/// deployment targets predate `Mutex`, an `NSLock` guards it.
///
/// The mutex guards no value of its own (`Mutex<Void>`), and the value sits beside it. A
/// `Mutex<Value>` is a generic type, whose metadata an unspecialized call or deinit must look up
/// in the runtime's cache each time; and calls from other modules are unspecialized: as SwiftPM
/// builds this package with Swift 6.3.1 (no cross-module optimization of `package`
/// declarations), another module neither inlines nor specializes them, `@inlinable` or not, as a
/// two-module check showed.
///
/// `@unchecked Sendable`: `value` is only touched while the lock is held; for the same reason
/// its accesses need no dynamic exclusivity checks.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    #if canImport(Synchronization) && !canImport(Darwin)
        private let mutex = Mutex<Void>(())
    #else
        private let lock = NSLock()
    #endif
    @exclusivity(unchecked) private var value: Value

    /// Creates a value guarded by its own lock.
    ///
    /// - Parameter value: The initial value.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value; it must not use this `Locked` again.
    /// - Returns: What `body` returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Synchronization) && !canImport(Darwin)
            try mutex.withLock { _ in try body(&value) }
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
