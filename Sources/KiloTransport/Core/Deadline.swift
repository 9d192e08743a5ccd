import Foundation

/// Runs work that must end by a deadline, however long its steps wait: a server that drips one
/// byte at a time resets an idle timeout, not this one.
package enum Deadline {
    /// Runs `operation`, cancelling it and throwing ``LimitError/deadlineExceeded(after:)`` once
    /// `seconds` have passed, or runs it as it is for `nil`.
    package static func run<T: Sendable>(
        _ seconds: TimeInterval?,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let seconds else { return try await operation() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: nanoseconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            do {
                guard let first = try await group.next(), let value = first else {
                    throw LimitError.deadlineExceeded(after: seconds)
                }
                return value
            } catch is CancellationError {
                throw URLError(.cancelled)
            }
        }
    }

    /// `seconds` in nanoseconds, within what a sleep can count.
    package static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        UInt64(max(0, min(seconds, TransportRequest.longestTimeout)) * 1_000_000_000)
    }
}
