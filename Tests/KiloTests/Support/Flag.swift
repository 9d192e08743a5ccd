import Foundation

/// A Boolean that any thread may set and read: whether a fake body's reader cancelled it, say.
final class Flag: @unchecked Sendable {
    // `@unchecked Sendable`: `isSet` is only read and written under `lock`.
    private let lock = NSLock()
    private var isSet = false

    func set() {
        lock.withLock { isSet = true }
    }

    var value: Bool {
        lock.withLock { isSet }
    }
}
