/// Carries a value that is not `Sendable` from the task that made it to the queue that
/// consumes it.
///
/// `@unchecked Sendable`: Kilo creates each handoff around a value that nothing else
/// references (a freshly decoded result, or the caller's result handler), moves it to exactly
/// one other thread, and never touches it again; so no two threads ever use the value at once.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}
