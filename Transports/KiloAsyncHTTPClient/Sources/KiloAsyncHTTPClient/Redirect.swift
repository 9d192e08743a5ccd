import Foundation
import Kilo

/// How a redirect turns one request into the next, by `URLSession`'s rules.
enum Redirect {
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
