import Foundation

/// How much of a request has been sent and how much of its response received.
///
/// Kilo reports progress to a ``Handler`` as bytes move, in both directions; the counts never
/// go down, except that they start over, once, when a ``RetryingTransport`` or an
/// ``InterceptingTransport`` sends the request again. The last report of a request that
/// succeeds has every expected byte of its last attempt.
///
/// ```swift
/// proxy.encoding = .multipartFormData   // a file argument needs it
/// try await proxy.invoke(.post, path: "videos", arguments: ["video": videoURL], progress: ProgressHandler { progress in
///     print(progress.fractionSent ?? 0)
/// })
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Receives progress reports, on a background thread: the request's task, or the
    /// transport's own thread as bytes move.
    public typealias Handler = @Sendable (TransferProgress) -> Void

    /// The body bytes sent so far.
    public var bytesSent: Int64
    /// The size of the request body, or `nil` when it is not known.
    public var expectedBytesToSend: Int64?
    /// The body bytes received so far.
    public var bytesReceived: Int64
    /// The size of the response body, or `nil` when it is not known: a body without a
    /// `Content-Length`, or a compressed one (`Content-Encoding: gzip`, say), which arrives
    /// decompressed, until the last report.
    public var expectedBytesToReceive: Int64?

    /// Creates a progress report.
    ///
    /// - Parameters:
    ///   - bytesSent: The body bytes sent so far.
    ///   - expectedBytesToSend: The size of the request body, if known.
    ///   - bytesReceived: The body bytes received so far.
    ///   - expectedBytesToReceive: The size of the response body, if known.
    public init(
        bytesSent: Int64 = 0,
        expectedBytesToSend: Int64? = nil,
        bytesReceived: Int64 = 0,
        expectedBytesToReceive: Int64? = nil
    ) {
        self.bytesSent = bytesSent
        self.expectedBytesToSend = expectedBytesToSend
        self.bytesReceived = bytesReceived
        self.expectedBytesToReceive = expectedBytesToReceive
    }

    /// The share of the request body sent, from 0 to 1, or `nil` when its size is unknown.
    public var fractionSent: Double? {
        Self.fraction(bytesSent, of: expectedBytesToSend)
    }

    /// The share of the response body received, from 0 to 1, or `nil` when its size is unknown.
    public var fractionReceived: Double? {
        Self.fraction(bytesReceived, of: expectedBytesToReceive)
    }

    private static func fraction(_ done: Int64, of total: Int64?) -> Double? {
        guard let total, total >= 0 else { return nil }
        return total == 0 ? 1 : min(1, Double(done) / Double(total))
    }
}

/// Passes a request's progress to a handler, keeping the reports monotonic.
///
/// A ``Transport`` reports what it knows with ``reportSent(_:of:)`` and
/// ``reportReceived(_:of:)``, from any thread; the observer drops reports that would go
/// backwards and calls the handler with the combined state. A transport that sends the request
/// again (``RetryingTransport``, ``InterceptingTransport``) calls ``restart()`` first: the
/// reports then start over from nothing, once, and the new attempt's bytes replace the last
/// one's.
public final class ProgressObserver: Sendable, Hashable {
    private let handler: TransferProgress.Handler
    private let state = Locked(TransferProgress())

    /// Creates an observer.
    ///
    /// - Parameter handler: Receives each report.
    public init(_ handler: @escaping TransferProgress.Handler) {
        self.handler = handler
    }

    /// Reports request body bytes sent.
    ///
    /// - Parameters:
    ///   - bytes: The total sent so far.
    ///   - expected: The body's size, if known.
    public func reportSent(_ bytes: Int64, of expected: Int64?) {
        report { progress in
            guard bytes >= progress.bytesSent else { return false }
            progress.bytesSent = bytes
            progress.expectedBytesToSend = expected.flatMap { $0 >= 0 ? $0 : nil } ?? progress.expectedBytesToSend
            return true
        }
    }

    /// Reports response body bytes received.
    ///
    /// - Parameters:
    ///   - bytes: The total received so far.
    ///   - expected: The body's size, if known.
    public func reportReceived(_ bytes: Int64, of expected: Int64?) {
        report { progress in
            guard bytes >= progress.bytesReceived else { return false }
            progress.bytesReceived = bytes
            progress.expectedBytesToReceive =
                expected.flatMap { $0 >= 0 ? $0 : nil } ?? progress.expectedBytesToReceive
            return true
        }
    }

    /// Passes a whole report on, as another observer made it: it reaches the handler if it
    /// differs from the last.
    ///
    /// - Parameter transfer: The progress to report.
    package func report(_ transfer: TransferProgress) {
        report { progress in
            progress = transfer
            return true
        }
    }

    /// Starts the reports over for another attempt at the request: the bytes sent and received
    /// go back to nothing (the expected size of the body to send stays), and the handler hears
    /// of it at once if anything had moved.
    public func restart() {
        report { progress in
            progress = TransferProgress(expectedBytesToSend: progress.expectedBytesToSend)
            return true
        }
    }

    /// The last progress reported.
    public var current: TransferProgress {
        state.withLock { $0 }
    }

    private func report(_ update: (inout TransferProgress) -> Bool) {
        // The handler runs under the lock, so reports reach it in order, one at a time.
        state.withLock { progress in
            var next = progress
            if update(&next), next != progress {
                progress = next
                handler(next)
            }
        }
    }

    /// Whether two observers are the same object.
    ///
    /// - Parameters:
    ///   - lhs: An observer.
    ///   - rhs: Another observer.
    /// - Returns: `true` when they are identical.
    public static func == (lhs: ProgressObserver, rhs: ProgressObserver) -> Bool {
        lhs === rhs
    }

    /// Hashes the observer's identity.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
