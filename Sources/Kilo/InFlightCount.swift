import KiloTransport

/// How many of a proxy's callback requests are waiting for their response: it decides where a
/// response is mapped and how a request's task starts (see `WebServiceProxy.start`).
final class InFlightCount: Sendable {
    private let count = Locked(0)

    /// Counts a request that starts.
    ///
    /// - Returns: Whether it is the only one in flight.
    @discardableResult
    func begin() -> Bool {
        count.withLock { count in
            count += 1
            return count == 1
        }
    }

    /// Counts a request whose response has come.
    ///
    /// - Returns: Whether others are still in flight.
    @discardableResult
    func end() -> Bool {
        count.withLock { count in
            count -= 1
            return count > 0
        }
    }
}
