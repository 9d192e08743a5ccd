import Foundation

/// A URL's origin: its scheme, host and port (RFC 6454), the one place its credentials may go.
///
/// Transports use it to follow a redirect safely: credentials stay on their origin, so a redirect
/// that leaves it drops the ``credentialFields`` and the target's user and password
/// (``withoutUserInfo(_:)``). A custom ``Transport`` that follows redirects can do the same.
///
/// ```swift
/// if Origin(request.url)?.contains(target) != true {
///     for name in Origin.credentialFields { next.headers[name] = nil }
///     guard let target = Origin.withoutUserInfo(target) else { return nil }  // do not follow
///     next.url = target
/// }
/// ```
public struct Origin: Hashable, Sendable {
    /// The header fields that carry credentials for one origin.
    public static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The scheme, in lowercase.
    public let scheme: String

    /// The host as sent, percent-encoded, in lowercase.
    ///
    /// Percent-encoded because `URL.host` is `nil` for a host that does not decode (`%FF`), and
    /// two such hosts are not one origin.
    public let host: String

    /// The port, the scheme's default (443 for `https`, 80 otherwise) when the URL names none.
    public let port: Int

    /// The origin of a URL, or `nil` for a URL without a scheme or host, which has none.
    ///
    /// - Parameter url: The URL, resolved against its base URL if it has one.
    public init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), !scheme.isEmpty,
            let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether a URL is of this origin.
    ///
    /// - Parameter url: The URL.
    /// - Returns: `true` when its scheme, host and port are this origin's.
    public func contains(_ url: URL) -> Bool {
        Origin(url) == self
    }

    /// A URL without its user and password, which a transport would send as Basic authentication.
    ///
    /// Checked as sent, percent-encoded: `URL.user` is `nil` for a user such as `%FF` that does
    /// not decode as UTF-8, and libcurl would still send it.
    ///
    /// - Parameter url: The URL.
    /// - Returns: `url` itself when it has neither, the URL without them, or `nil` when they
    ///   cannot be taken off (so a redirect to it should not be followed).
    public static func withoutUserInfo(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        guard components.percentEncodedUser != nil || components.percentEncodedPassword != nil else { return url }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url
    }
}
