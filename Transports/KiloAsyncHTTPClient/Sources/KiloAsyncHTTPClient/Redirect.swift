import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore

/// How much of a followed redirect's body the transport reads; where the redirect goes is
/// `RedirectPolicy`'s to say.
enum Redirect {
    /// The most bytes of a followed redirect's body that the transport reads: 64 KiB.
    ///
    /// Nothing reads a redirect's body; it is a line or a short page for people ("Moved to …").
    /// One that ends within 64 KiB, as every real one does, is read to its end so that its
    /// connection can carry the next request. Past that, closing the connection and opening
    /// another costs less than reading on, and a body that never ends cannot hold a request.
    static let maximumBodySize = 64 << 10

    /// Reads a followed redirect's body to its end, or stops, and has the client close the
    /// connection, once more than ``maximumBodySize`` bytes have come.
    ///
    /// Cancellation is checked at every chunk and once the body ends, rather than left to how
    /// the client's body takes it, so that a cancelled request never goes on to the target.
    ///
    /// - Parameters:
    ///   - response: The redirect.
    ///   - method: The method of the request that received it.
    ///   - timer: The request's idle timer, touched as chunks come.
    /// - Throws: `CancellationError` when the calling task is cancelled; the client's error when
    ///   the body fails.
    static func skipBody(
        of response: HTTPClientResponse,
        to method: KiloTransport.HTTPMethod,
        timer: IdleTimer?
    ) async throws {
        var size = 0
        // Dropping the iterator before the body's end has the client close the connection.
        for try await chunk in ClientBody(of: response, to: method, isDropped: true) {
            try Task.checkCancellation()
            timer?.touch()
            size += chunk.readableBytes
            if size > maximumBodySize { return }
        }
        try Task.checkCancellation()
    }
}
