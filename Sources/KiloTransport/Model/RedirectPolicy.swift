import Foundation

/// Where a redirect goes, and with what: the one policy every transport of Kilo's follows, by
/// `URLSession`'s rules.
///
/// - Which responses are followed: 301, 302, 303, 307 and 308 with a `Location` that leads to an
///   `http` or `https` URL (``Origin/redirectTarget(of:from:)``); any other is the answer.
/// - The method and body: a 303 becomes a `GET` without a body (a `HEAD` stays a `HEAD`), and so
///   does a `POST` that gets a 301 or 302 (RFC 9110 §15.4); every other request keeps its method
///   and body.
/// - Credentials stay on their ``Origin``: a redirect that leaves it goes without the
///   ``Origin/credentialFields`` and without a user and password in its URL.
/// - At most ``maximumRedirects`` in a row, and no loop: a request made a third time with nothing
///   changed on the way (no cookie set) is going round in circles (see ``Chain``).
///
/// A transport keeps only what its platform forces on it: how it resends a body, how it asks
/// your session's delegate.
public enum RedirectPolicy {
    /// The most redirects one request follows, as `URLSession`, libcurl and browsers allow: 20.
    public static let maximumRedirects = 20

    /// Whether a status code is one of the redirects that are followed.
    ///
    /// - Parameter statusCode: The response's status code.
    /// - Returns: `true` for 301, 302, 303, 307 and 308.
    public static func isFollowed(_ statusCode: Int) -> Bool {
        (301...303).contains(statusCode) || statusCode == 307 || statusCode == 308
    }

    /// The method a redirect's next request has, and whether it keeps the body.
    ///
    /// - Parameters:
    ///   - statusCode: The redirect's status code.
    ///   - method: The method of the request that was redirected.
    /// - Returns: `GET` without the body for a 303 (a `HEAD` stays a `HEAD`) and for a `POST`'s
    ///   301 or 302; otherwise `method`, with the body. A `PUT`, `PATCH` or `DELETE` that became a
    ///   `GET` would report the target's `200` as if it had been done.
    public static func method(after statusCode: Int, of method: HTTPMethod) -> (method: HTTPMethod, keepsBody: Bool) {
        switch statusCode {
        case 303 where method != .head, 301 where method == .post, 302 where method == .post:
            (.get, false)
        default:
            (method, true)
        }
    }

    /// Whether a redirect from `url` to `target` keeps the request's credentials: only when the
    /// two have one ``Origin``.
    public static func keepsCredentials(from url: URL, to target: URL) -> Bool {
        Origin(url)?.contains(target) == true
    }

    /// The request a redirect leads to, or `nil` when it is not followed (see the rules above).
    ///
    /// - Parameters:
    ///   - statusCode: The response's status code.
    ///   - location: The response's `Location` field.
    ///   - request: The request that received the response.
    /// - Returns: The next request; `nil` when the status is not a redirect to follow, the
    ///   `Location` is missing or leads elsewhere than `http(s)`, or a target's user and password
    ///   cannot be taken off.
    public static func request(
        following statusCode: Int,
        location: String?,
        from request: TransportRequest
    ) -> TransportRequest? {
        guard isFollowed(statusCode), let location,
            let target = Origin.redirectTarget(of: location, from: request.url)
        else { return nil }
        var next = request
        next.url = target
        let (method, keepsBody) = method(after: statusCode, of: request.method)
        next.method = method
        if !keepsBody {
            next.body = nil
            next.headers["Content-Type"] = nil
            next.headers["Content-Length"] = nil
        }
        if !keepsCredentials(from: request.url, to: target) {
            for name in Origin.credentialFields {
                next.headers[name] = nil
            }
            guard let cleared = Origin.withoutUserInfo(target) else { return nil }
            next.url = cleared
        }
        return next
    }

    /// The redirects one request has followed so far: it fails the request past
    /// ``RedirectPolicy/maximumRedirects``, and at a loop: the same method and URL a third time
    /// since the last response that set a cookie. Once more is allowed, as a server may send a
    /// client back to the same URL while its own state changes (a 307 from a load balancer).
    public struct Chain: Sendable {
        /// How often each request, by method and URL, was made since the last response that set
        /// a cookie.
        private var made: [String: Int]
        /// The redirects followed so far.
        public private(set) var count = 0

        /// Starts a chain at the first request.
        ///
        /// - Parameters:
        ///   - method: The first request's method.
        ///   - url: Its URL.
        public init(_ method: String, _ url: URL) {
            made = [Self.key(method, url): 1]
        }

        /// Follows a redirect to `url` with `method`.
        ///
        /// - Parameters:
        ///   - method: The next request's method.
        ///   - url: Its URL.
        ///   - setsCookies: Whether the redirect's response set a cookie, which may change what
        ///     the same request gets: a sign-in that redirects back where it began.
        /// - Throws: `URLError(.httpTooManyRedirects)` past ``RedirectPolicy/maximumRedirects``,
        ///   or for a request made a third time since the last cookie was set (a loop).
        public mutating func follow(_ method: String, to url: URL, setsCookies: Bool) throws {
            count += 1
            if setsCookies {
                made = [:]
            }
            let times = made[Self.key(method, url), default: 0] + 1
            made[Self.key(method, url)] = times
            guard count <= RedirectPolicy.maximumRedirects, times < 3 else {
                throw URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: url])
            }
        }

        private static func key(_ method: String, _ url: URL) -> String {
            method.uppercased() + " " + url.absoluteString
        }
    }
}
