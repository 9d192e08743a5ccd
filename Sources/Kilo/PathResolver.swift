import Foundation
import KiloTransport

/// Resolves request paths against a base URL, as `URL(string:relativeTo:)` does, but quickly
/// for the common case.
///
/// Resolving a relative URL and reading its `absoluteURL` is a noticeable part of a small request
/// on loopback. When the base URL is an HTTP(S) URL with a host whose path ends with `/` and has
/// no `.` or `..` segment, and the path is plain (letters, digits, and `-._~!$&'()*+,;=@/`, no
/// dot segments, not starting with `/`), resolving it is the same as appending it to the base
/// URL's text, which is what the resolver does then. It remembers the URLs of up to 64 such paths
/// of at most 256 bytes, and forgets them all when full: a program calls the same few paths again
/// and again, and parsing the URL is most of the cost. Any other path takes the general route.
/// Copies of a resolver (``WebServiceProxy/withTimeout(_:)``'s proxies) share what it remembers.
///
/// The empty path is the base URL itself (without a fragment, as RFC 3986 resolves it). A path
/// that leads to another origin (scheme, host or port) than the base URL's, or that names user
/// info the base URL does not have, is refused unless the caller allows it: headers meant for the
/// service, such as its `Authorization`, would go to whoever that path names.
struct PathResolver: Sendable {
    let baseURL: URL
    /// The base URL's text, when plain paths may simply be appended to it.
    private let prefix: String?
    /// The URL of the empty path: the base URL, absolute, without its fragment; `nil` when that
    /// is not an HTTP(S) URL with a host.
    private let baseURLItself: URL?
    /// The base URL's origin, and its parts with its user info as sent: what a path that leaves
    /// neither must keep.
    private let baseOrigin: Origin?
    private let baseComponents: URLComponents?
    /// Plain paths resolved recently, and their URLs: up to 64.
    private let recent = RecentURLs(limit: 64)

    /// The longest path, in UTF-8 bytes, that ``recent`` holds.
    private static let recentPathLimit = 256

    init(baseURL: URL) {
        self.baseURL = baseURL
        let absolute = baseURL.absoluteURL
        if let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = absolute.host, !host.isEmpty,
            absolute.query == nil, absolute.fragment == nil,
            absolute.absoluteString.hasSuffix("/"),
            // A base whose path has `.` or `..` segments resolves differently: check, once.
            URL(string: "x", relativeTo: baseURL)?.absoluteURL.absoluteString == absolute.absoluteString + "x"
        {
            prefix = Self.withLowercaseScheme(absolute).absoluteString
        } else {
            prefix = nil
        }
        baseURLItself = Self.httpURL(Self.withoutFragment(absolute))
        baseOrigin = Origin(absolute)
        baseComponents = URLComponents(url: absolute, resolvingAgainstBaseURL: true)
    }

    /// Resolves `path` against the base URL.
    ///
    /// - Parameters:
    ///   - path: The path; empty for the base URL itself.
    ///   - allowsOtherOrigins: Whether the path may lead to another scheme, host or port than the
    ///     base URL's, or name user info the base URL does not have.
    /// - Returns: The request's URL, its scheme in lowercase.
    /// - Throws: ``RequestError/invalidPath(_:)`` unless the result is an absolute HTTP(S) URL
    ///   with a host; ``RequestError/pathLeavesBaseURL(_:)`` for a path that leads away from the
    ///   base URL's origin, unless `allowsOtherOrigins`.
    func resolve(_ path: String, allowsOtherOrigins: Bool = false) throws -> URL {
        // Plain first: Swift compares strings by canonical equivalence, so a path such as
        // "\u{212A}elvin" (KELVIN SIGN) would find the URL remembered for "Kelvin". A plain path is
        // ASCII, and ASCII strings are equal only when their bytes are.
        if let prefix, Self.isPlain(path) {
            if let url = recent[path] {
                return url
            }
            if let url = URL(string: prefix + path) {
                if path.utf8.count <= Self.recentPathLimit {
                    recent.remember(url, for: path)
                }
                return url
            }
        }
        if path.isEmpty {
            // `URL(string: "")` is nil; RFC 3986 resolves the empty reference to the base itself.
            guard let baseURLItself else { throw RequestError.invalidPath(path) }
            return baseURLItself
        }
        guard let url = Self.httpURL(URL(string: path, relativeTo: baseURL)?.absoluteURL) else {
            throw RequestError.invalidPath(path)
        }
        guard allowsOtherOrigins || hasBaseOrigin(url) else {
            throw RequestError.pathLeavesBaseURL(path)
        }
        return url
    }

    /// `url` with its scheme in lowercase, if it is an HTTP(S) URL with a host.
    private static func httpURL(_ url: URL?) -> URL? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            return nil
        }
        return withLowercaseScheme(url)
    }

    /// Whether `url` has the base URL's ``Origin`` and user info: where a request may go with the
    /// headers meant for the base URL. Both are compared as sent, percent-encoded, so that
    /// anything that differs, even a host spelled another way (`127.1` for `127.0.0.1`, `%2E` for
    /// `.`) or user info that does not decode, counts as another origin.
    private func hasBaseOrigin(_ url: URL) -> Bool {
        guard let baseOrigin, baseOrigin.contains(url), let baseComponents,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return false }
        return components.percentEncodedUser == baseComponents.percentEncodedUser
            && components.percentEncodedPassword == baseComponents.percentEncodedPassword
    }

    /// `url` without its fragment.
    private static func withoutFragment(_ url: URL) -> URL {
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url
        }
        components.fragment = nil
        return components.url ?? url
    }

    /// `url` with its scheme in lowercase. A scheme is matched without regard to case, but
    /// Linux's URLSession fails `HTTP://` with `URLError.unsupportedURL`.
    private static func withLowercaseScheme(_ url: URL) -> URL {
        guard let scheme = url.scheme, scheme != scheme.lowercased(),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else {
            return url
        }
        components.scheme = scheme.lowercased()
        return components.url ?? url
    }

    /// Whether appending `path` to a base URL ending with `/` resolves it: not empty; no scheme,
    /// query, fragment, percent sign or leading `/`; no `.` or `..` segment.
    static func isPlain(_ path: String) -> Bool {
        guard !path.isEmpty else { return false }  // URL(string:) makes nothing of it
        var segmentLength = 0
        var dotsInSegment = 0
        var isFirst = true
        for byte in path.utf8 {
            if isFirst {
                isFirst = false
                if byte == UInt8(ascii: "/") { return false }
            }
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0, segmentLength == dotsInSegment, dotsInSegment <= 2 { return false }
                segmentLength = 0
                dotsInSegment = 0
                continue
            }
            guard byte < 128, plainBytes[Int(byte)] else { return false }
            segmentLength += 1
            if byte == UInt8(ascii: ".") { dotsInSegment += 1 }
        }
        return !(segmentLength > 0 && segmentLength == dotsInSegment && dotsInSegment <= 2)
    }

    /// The ASCII bytes a plain path may hold besides `/`.
    private static let plainBytes: [Bool] = (0..<128).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=@".utf8.contains(UInt8(byte))
        }
    }
}
