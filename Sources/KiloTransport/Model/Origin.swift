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

    /// The URL a redirect leads to, or `nil` when it should not be followed.
    ///
    /// The `Location` is resolved against the URL that was redirected (RFC 3986), and followed
    /// only to an `http` or `https` URL with a host that decodes and a port within 0…65535: never
    /// to `file:`, `data:` or `javascript:`, which a transport would otherwise read as a path.
    ///
    /// - Parameters:
    ///   - location: The response's `Location` field.
    ///   - url: The URL of the request that was redirected.
    /// - Returns: The absolute URL to request next, or `nil`.
    public static func redirectTarget(of location: String, from url: URL) -> URL? {
        guard let target = URL(string: location, relativeTo: url)?.absoluteURL, isRedirectTarget(target) else {
            return nil
        }
        return target
    }

    /// Whether a redirect may lead to a URL: one ``redirectTarget(of:from:)`` would give.
    ///
    /// - Parameter url: The absolute URL a redirect leads to.
    /// - Returns: `true` for an `http` or `https` URL with a host that decodes and a port within
    ///   0…65535.
    public static func isRedirectTarget(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.percentEncodedHost?.isEmpty == false, url.host != nil
        else { return false }
        // A port too large for `Int` is named but `nil`: a client would use the default one.
        return components.rangeOfPort == nil || (0...65_535).contains(components.port ?? -1)
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
