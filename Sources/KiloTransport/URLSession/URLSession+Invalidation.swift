import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Whether the session has been invalidated (`finishTasksAndInvalidate()` or
    /// `invalidateAndCancel()`), so that making a task in it would trap.
    ///
    /// On Linux, swift-corelibs-foundation (6.3.1) ends the process with `Fatal error: Session
    /// invalidated` when a task is made in an invalidated session, and has no public way to ask
    /// whether a session is: this reads the `invalidated` field that its own check reads, through
    /// reflection. It is `false` where there is no such field (on Apple platforms, or a later
    /// swift-corelibs-foundation), which leaves things as they were without this check.
    ///
    /// Reflection costs a few microseconds: ask only before making a task the caller did not ask
    /// for (see ``URLSessionTransport``'s resends and redirects), not for every request.
    var isInvalidated: Bool {
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            if let field = current.children.first(where: { $0.label == "invalidated" }) {
                return field.value as? Bool ?? false
            }
            mirror = current.superclassMirror
        }
        return false
    }
}

extension URLError {
    /// The error of a request whose session was invalidated before Kilo could make its task (a
    /// multipart body still being written to a file) or the next one (after a redirect that keeps
    /// the method, or a reused connection closed before any response): the session traps on a
    /// new task.
    ///
    /// It is `cancelled`, as for the requests that `invalidateAndCancel()` ends, and no
    /// ``RetryPolicy`` retries it.
    package static var sessionInvalidated: URLError {
        URLError(
            .cancelled,
            userInfo: [
                NSLocalizedDescriptionKey: "The URL session was invalidated before the request's task could be made."
            ]
        )
    }
}

extension Transport {
    /// Whether this transport sends with a URL session that has been invalidated, directly or
    /// under Kilo's retrying and intercepting transports: another attempt would trap (see
    /// `URLSession.isInvalidated`). `false` for any other transport.
    ///
    /// It reads the session's state by reflection: ask only where a request has waited (before a
    /// retry, after writing a body to a file), not for every request.
    package var sendsWithInvalidatedSession: Bool {
        switch self {
        case let transport as URLSessionTransport:
            return transport.session.isInvalidated
        case let transport as RetryingTransport:
            return transport.transport.sendsWithInvalidatedSession
        case let transport as InterceptingTransport:
            return transport.transport.sendsWithInvalidatedSession
        default:
            return false
        }
    }
}
