import Foundation

/// Values remembered for the keys a program uses again and again, such as the paths it calls or
/// the header names it sends: at most `limit` of them, all forgotten at once when it is full, so
/// that a program that keeps using new keys costs a bounded amount of memory.
///
/// Its methods are inlinable, so that other modules' calls are specialized for their keys and
/// values: unspecialized, a lookup hashes and compares its key through the generic witness tables.
///
/// `@unchecked Sendable`: `values` is only touched while `lock` is held.
package final class RecentValues<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    @usableFromInline let limit: Int
    @usableFromInline let lock = Lock()
    @usableFromInline var values: [Key: Value] = [:]

    /// Creates an empty store.
    ///
    /// - Parameter limit: How many values it holds before it forgets them all.
    @inlinable package init(limit: Int) {
        self.limit = limit
    }

    /// The value remembered for `key`, if any.
    @inlinable package subscript(key: Key) -> Value? {
        lock.withLock { values[key] }
    }

    /// Remembers `value` for `key`, first forgetting everything if the store is full.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its key.
    @inlinable package func remember(_ value: Value, for key: Key) {
        lock.withLock {
            if values.count >= limit {
                values.removeAll(keepingCapacity: true)
            }
            values[key] = value
        }
    }
}
