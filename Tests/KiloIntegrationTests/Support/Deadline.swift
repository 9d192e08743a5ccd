import Foundation

/// Runs an operation that might never finish, without letting it hang the test run.
enum Deadline {
    /// Awaits `operation` for at most `seconds`.
    ///
    /// Unlike a task group, this does not wait for a stuck operation: it is left running (and
    /// cancelled) in the background.
    ///
    /// - Returns: The operation's result, or `nil` if the deadline passed first.
    static func run<Value: Sendable>(
        seconds: Double,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Result<Value, any Error>? {
        let first = Protected<CheckedContinuation<Result<Value, any Error>?, Never>?>(nil)
        let work = Task { () -> Result<Value, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        var timer: Task<Void, Never>?
        let outcome = await withCheckedContinuation { continuation in
            first.withLock { $0 = continuation }
            Task {
                let result = await work.value
                first.withLock { $0.take() }?.resume(returning: result)
            }
            timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                first.withLock { $0.take() }?.resume(returning: nil)
            }
        }
        timer?.cancel()
        if outcome == nil {
            work.cancel()
        }
        return outcome
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
