import KiloTransport

/// A progress handler for the `async` methods, which take it by name only:
/// `progress: ProgressHandler { progress in … }`.
///
/// It wraps a ``TransferProgress/Handler`` so that a trailing closure never becomes one: in an
/// `async` function, `proxy.invoke(.get, path: "items") { result in … }` is always the callback
/// `invoke` with its result handler, never the `async` one with a progress handler the caller did
/// not name. (The callback methods take a plain `progress:` closure; their required result handler
/// comes after it.)
///
/// ```swift
/// let receipt: Receipt = try await proxy.invoke(
///     .post,
///     path: "videos",
///     arguments: ["video": videoURL],
///     progress: ProgressHandler { progress in print(progress.fractionSent ?? 0) }
/// )
/// ```
public struct ProgressHandler: Sendable {
    /// Receives each report, on a background thread.
    public let handler: TransferProgress.Handler

    /// Creates a progress handler.
    ///
    /// - Parameter handler: Receives each report, on a background thread.
    public init(_ handler: @escaping TransferProgress.Handler) {
        self.handler = handler
    }
}
