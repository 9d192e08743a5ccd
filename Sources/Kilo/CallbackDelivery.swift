import Foundation

/// Runs a callback-style handler where its isolation allows: on the actor it is isolated to, or,
/// for a handler isolated to none, on the proxy's ``WebServiceProxy/callbackQueue``.
///
/// A closure written in main-actor code (top-level code, a `@MainActor` type) is isolated to the
/// main actor, and Swift checks that at run time: called on a queue of the user's own, the first
/// closure inside it (`result.map { … }`) stopped the program in `dispatch_assert_queue`. Kilo's
/// handler types are `@isolated(any)`, so Kilo sees that isolation and runs such a handler on the
/// main actor; a `@Sendable` or nonisolated handler runs on the callback queue, as before.
enum CallbackDelivery {
    /// Calls `handler` with what `value` makes, on the actor the handler is isolated to, or on
    /// `queue` for a handler isolated to none; returns once it has run.
    ///
    /// - Parameters:
    ///   - handler: The caller's handler.
    ///   - value: Makes the handler's argument, where the handler runs, just before it runs; `nil`
    ///     means the handler must not run (its request was cancelled meanwhile).
    ///   - queue: Where a handler isolated to none runs.
    static func call<Value>(
        _ handler: Handoff<@isolated(any) (Value) -> Void>,
        with value: @escaping @Sendable () -> Handoff<Value>?,
        on queue: DispatchQueue
    ) async {
        await withTaskExecutorPreference(QueueExecutor(queue)) {
            await call(handler, with: value, isolation: handler.value.isolation)
        }
    }

    /// Calls `handler` isolated to `isolation`: on that actor, where the handler's own `await`
    /// does not hop again, or, for `nil`, on the task's preferred executor (the callback queue).
    private static func call<Value>(
        _ handler: Handoff<@isolated(any) (Value) -> Void>,
        with value: @Sendable () -> Handoff<Value>?,
        isolation: isolated (any Actor)?
    ) async {
        guard let value = value() else { return }
        await handler.value(value.value)
    }
}

/// Runs a task's nonisolated work on a dispatch queue: the executor Kilo prefers while it calls a
/// handler, so that a handler isolated to no actor runs on ``WebServiceProxy/callbackQueue``.
private final class QueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
