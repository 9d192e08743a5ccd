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
    /// returns once it has run, or, with `waiting` false and no isolation, once it is handed to
    /// `queue`: a result handler, which runs once and last, needs no one to wait for it, and the
    /// request's task ends at once; element handlers of a stream wait, one at a time.
    ///
    /// - Parameters:
    ///   - handler: The caller's handler.
    ///   - value: Makes the handler's argument, where the handler runs, just before it runs; `nil`
    ///     means the handler must not run (its request was cancelled meanwhile).
    ///   - queue: Where a handler runs for a caller isolated to no actor.
    ///   - isolation: The caller's actor.
    ///   - waiting: Whether to return only once a handler on `queue` has run.
    static func call<Value>(
        _ handler: Handoff<(Value) -> Void>,
        with value: @escaping @Sendable () -> Handoff<Value>?,
        on queue: DispatchQueue,
        isolation: (any Actor)?,
        waiting: Bool = true
    ) async {
        if let isolation {
            await call(handler, with: value, isolation: isolation)
        } else if waiting {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    run(handler, with: value)
                    continuation.resume()
                }
            }
        } else {
            queue.async { run(handler, with: value) }
        }
    }

    /// Calls `handler` on `isolation`, the actor the caller passed it from.
    private static func call<Value>(
        _ handler: Handoff<(Value) -> Void>,
        with value: @Sendable () -> Handoff<Value>?,
        isolation: isolated any Actor
    ) {
        run(handler, with: value)
    }

    /// Calls `handler` with what `value` makes, unless it makes nothing.
    private static func run<Value>(_ handler: Handoff<(Value) -> Void>, with value: () -> Handoff<Value>?) {
        if let value = value() {
            handler.value(value.value)
        }
    }
}
