import Foundation

/// Values remembered for the strings a program uses again and again, such as the paths it calls
/// or the header names it sends: at most `limit` of them, all forgotten at once when it is full,
/// so that a program that keeps using new keys costs a bounded amount of memory.
///
/// The keys are strings, not a generic `Hashable`: calls from other modules run unspecialized
/// (see ``Locked``), and a generic key would then be hashed and compared through its witness
/// tables.
///
/// `@unchecked Sendable`: `values` is only touched while `lock` is held.
package final class RecentValues<Value: Sendable>: @unchecked Sendable {
    private let limit: Int
    private let lock = Lock()
    private var values: [String: Value] = [:]

    /// Creates an empty store.
    ///
    /// - Parameter limit: How many values it holds before it forgets them all.
    package init(limit: Int) {
        self.limit = limit
    }

    /// The value remembered for `key`, if any.
    package subscript(key: String) -> Value? {
        lock.withLock { values[key] }
    }

    /// Remembers `value` for `key`, first forgetting everything if the store is full.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its key.
    package func remember(_ value: Value, for key: String) {
        lock.withLock {
            if values.count >= limit {
                values.removeAll(keepingCapacity: true)
            }
            values[key] = value
        }
    }
}
