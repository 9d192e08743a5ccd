import Foundation

/// Runs a callback-style handler where the code that passed it runs: on the caller's actor, or,
/// for a caller isolated to no actor, on the proxy's ``WebServiceProxy/callbackQueue``.
///
/// In Swift 6 a closure written in main-actor code (top-level code, a `@MainActor` type) is
/// isolated to the main actor, and Swift checks that at run time: run on a queue of the user's
/// own, the first closure inside it (`result.map { … }`) stopped the program in
/// `dispatch_assert_queue`. Each callback method takes the caller's isolation (`#isolation`), which
/// is the isolation of every non-`Sendable` value the caller can hand it, a stored handler
/// included, and runs the handler there.
enum CallbackDelivery {
    /// Calls `handler` with what `value` makes, on `isolation`, or on `queue` when that is `nil`;
    /// returns once it has run.
    ///
    /// - Parameters:
    ///   - handler: The caller's handler.
    ///   - value: Makes the handler's argument, where the handler runs, just before it runs; `nil`
    ///     means the handler must not run (its request was cancelled meanwhile).
    ///   - queue: Where a handler runs for a caller isolated to no actor.
    ///   - isolation: The caller's actor.
    static func call<Value>(
        _ handler: Handoff<(Value) -> Void>,
        with value: @escaping @Sendable () -> Handoff<Value>?,
        on queue: DispatchQueue,
        isolation: (any Actor)?
    ) async {
        if let isolation {
            await call(handler, with: value, isolation: isolation)
        } else {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    if let value = value() {
                        handler.value(value.value)
                    }
                    continuation.resume()
                }
            }
        }
    }

    /// Calls `handler` as ``call(_:with:on:isolation:)`` does, but for a caller isolated to no
    /// actor, hands it to `queue` without waiting for it to run: a result handler, which runs
    /// once and last, needs no one to wait for it, and the request's task ends at once.
    static func post<Value>(
        _ handler: Handoff<(Value) -> Void>,
        with value: @escaping @Sendable () -> Handoff<Value>?,
        on queue: DispatchQueue,
        isolation: (any Actor)?
    ) async {
        if let isolation {
            await call(handler, with: value, isolation: isolation)
        } else {
            queue.async {
                if let value = value() {
                    handler.value(value.value)
                }
            }
        }
    }

    /// Calls `handler` on `isolation`, the actor the caller passed it from.
    private static func call<Value>(
        _ handler: Handoff<(Value) -> Void>,
        with value: @Sendable () -> Handoff<Value>?,
        isolation: isolated any Actor
    ) {
        if let value = value() {
            handler.value(value.value)
        }
    }
}
