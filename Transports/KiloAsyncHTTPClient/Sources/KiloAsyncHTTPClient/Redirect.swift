import AsyncHTTPClient
import Foundation
import Kilo
import NIOCore

/// How a redirect turns one request into the next, by `URLSession`'s rules, and how much of its
/// body is read.
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

    /// Whether a status code is one of the redirects that are followed: 301, 302, 303, 307, 308.
    ///
    /// - Parameter statusCode: The response's status code.
    /// - Returns: `true` for a redirect to follow.
    static func isRedirect(_ statusCode: UInt) -> Bool {
        (301...303).contains(statusCode) || statusCode == 307 || statusCode == 308
    }

    /// The request that a response redirects to, or `nil` when it is not a redirect to follow.
    ///
    /// A 303 becomes a `GET` with no body, `Content-Type` or `Content-Length` (a `HEAD` stays a
    /// `HEAD`), and so does a `POST` that gets a 301 or 302 (RFC 9110 §15.4); any other request
    /// keeps its method, headers and body, as a 307 or 308 keeps them. Only the targets
    /// ``KiloTransport/Origin/redirectTarget(of:from:)`` gives are followed. Credentials (the
    /// credential fields, and a user and password in the target's URL) are dropped when the
    /// target has another scheme, host or port; a target whose user and password cannot be
    /// taken off is not followed.
    ///
    /// - Parameters:
    ///   - statusCode: The response's status code.
    ///   - location: The response's `Location` field, resolved against the request's URL.
    ///   - request: The request that received the response.
    /// - Returns: The next request.
    static func request(following statusCode: Int, location: String?, from request: TransportRequest)
        -> TransportRequest?
    {
        guard statusCode >= 0, isRedirect(UInt(statusCode)), let location,
            let target = Origin.redirectTarget(of: location, from: request.url)
        else {
            return nil
        }
        var next = request
        next.url = target
        if becomesGET(statusCode, method: request.method) {
            next.method = .get
            next.body = nil
            next.headers["Content-Type"] = nil
            next.headers["Content-Length"] = nil
        }
        if Origin(request.url)?.contains(target) != true {
            for name in Origin.credentialFields {
                next.headers[name] = nil
            }
            guard let cleared = Origin.withoutUserInfo(target) else { return nil }
            next.url = cleared
        }
        return next
    }

    /// Whether a redirect turns the request into a `GET`: a 303, unless it is a `HEAD`, and a
    /// 301 or 302 of a `POST`, as `URLSession` does. A `PUT`, `PATCH` or `DELETE` that became a
    /// `GET` would report the target's `200` as if it had been done.
    private static func becomesGET(_ statusCode: Int, method: HTTPMethod) -> Bool {
        switch statusCode {
        case 303: method != .head
        case 301, 302: method == .post
        default: false
        }
    }
}
