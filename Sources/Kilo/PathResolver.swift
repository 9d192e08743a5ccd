import Foundation
import KiloTransport

/// Resolves request paths against a base URL, as `URL(string:relativeTo:)` does, but quickly
/// for the common case.
///
/// Resolving a relative URL and reading its `absoluteURL` costs a few microseconds each time,
/// which is a noticeable part of a small request on loopback. When the base URL is an HTTP(S)
/// URL with a host whose path ends with `/` and has no `.` or `..` segment, and the path is
/// plain (letters, digits, and `-._~!$&'()*+,;=@/`, no dot segments, not starting with `/`),
/// resolving it is the same as appending it to the base URL's text, which is what the resolver
/// does then. It remembers the URLs of up to 64 such paths of at most 256 bytes, and forgets them
/// all when full: a program calls the same few paths again and again, and parsing the URL is most
/// of the cost (about 4,000 instructions; a path that misses pays two more lock round trips and a
/// dictionary lookup and insert, a few hundred). Any other path takes the general route. Copies
/// of a resolver (``WebServiceProxy/withTimeout(_:)``'s proxies) share what it remembers.
struct PathResolver: Sendable {
    let baseURL: URL
    /// The base URL's text, when plain paths may simply be appended to it.
    private let prefix: String?
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
    }

    /// Resolves `path` against the base URL.
    ///
    /// - Throws: ``RequestError/invalidPath(_:)`` unless the result is an absolute HTTP(S) URL
    ///   with a host.
    func resolve(_ path: String) throws -> URL {
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
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw RequestError.invalidPath(path)
        }
        return Self.withLowercaseScheme(url)
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
