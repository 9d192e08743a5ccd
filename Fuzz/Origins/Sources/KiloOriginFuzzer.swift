import Foundation
import Kilo

/// libFuzzer's entry point: reads the bytes as text from outside (a hostile server's `Location`,
/// or a caller's path built from data it received) and checks that Kilo sends no credential to
/// another origin than the one it belongs to, as libcurl (URLSession on Linux) and `URL`
/// (async-http-client) read the URL that is requested.
///
/// The first byte chooses: below 0x80, a `Location` followed from ``redirected``; from 0x80, a
/// path resolved against ``bases`` by `invoke(path:)`. The rest is the text (``Text``).
///
/// Any broken property ends in `fatalError`, which libFuzzer reports as a crash and saves the
/// input for. See Fuzz/README.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let choice = Int(bytes.first ?? 0)
    let text = Text.decode(bytes.dropFirst())
    if choice < 0x80 {
        checkRedirect(to: text, from: redirected[choice % redirected.count])
    } else {
        checkPath(text, base: bases[choice % bases.count])
    }
    return 0
}

/// The URLs a redirect comes from: with credentials in them, ports named and not, IPv6 and IPv4
/// hosts, an internationalized one.
private let redirected = [
    "https://user:secret@api.example.com/a/b?q=1", "http://api.example.com:8080/a/b/",
    "https://[::1]:8443/x/y", "http://127.0.0.1/a", "https://xn--bcher-kva.example/a",
    "http://user@API.Example.com/", "https://api.example.com/",
].map { URL(string: $0)! }

/// Following a `Location` as both transports do: ``Origin/redirectTarget(of:from:)``, then the
/// credentials kept only on the same ``Origin``, else the target's user and password taken off.
private func checkRedirect(to location: String, from: URL) {
    guard let target = Origin.redirectTarget(of: location, from: from) else { return }  // not followed
    let curl = Curl.parts(of: target.absoluteString)
    if let curl, !["http", "https"].contains(curl.scheme.lowercased()) {
        fail("redirectTarget gave \(target.absoluteString), which libcurl reads as \(curl)", location, from)
    }
    if Origin(from)?.contains(target) == true {
        // Credentials go along: so must the request, to the same origin.
        checkSameOrigin(target, as: from, location)
        return
    }
    guard let cleared = Origin.withoutUserInfo(target) else { return }  // not followed
    if let curl = Curl.parts(of: cleared.absoluteString), curl.user != nil || curl.password != nil {
        fail("\(cleared.absoluteString), cleared of user info, sends \(curl)", location, from)
    }
    if cleared.user != nil || cleared.password != nil {
        fail("\(cleared.absoluteString), cleared of user info, has a user or password for URL", location, from)
    }
}

/// Base URLs of proxies: with a path and without, with user info, a port, an IPv6 host, dot
/// segments, no trailing slash, an uppercase scheme (with and without one).
private let bases = [
    "https://api.example.com/v1/", "http://user:secret@api.example.com:8080/", "https://[::1]/api/",
    "https://api.example.com", "https://api.example.com/v1/../v2/", "HTTP://127.0.0.1:8000/a/b",
    "HTTP://127.0.0.1:8000/a/b/",
].map { URL(string: $0)! }

/// Resolving a path as `invoke(path:)` does (`allowsAbsoluteURLs` off): the request goes to the
/// base URL's origin with its user info, or is refused, and the path resolves as
/// `URL(string:relativeTo:)` resolves it. The general route resolves it just so; the check is
/// of the fast route a plain path takes on a base URL that ends with `/`, and of the URL it
/// remembers for the path (asked for twice).
private func checkPath(_ path: String, base: URL) {
    // A fake transport that answers nothing: the request fails with `UnexpectedRequest`, which
    // carries it as Kilo would have sent it. A new one each time: a fake keeps every request.
    let proxy = WebServiceProxy(baseURL: base, transport: FakeTransport())
    let url = requestedURL(path, proxy: proxy)
    let again = requestedURL(path, proxy: proxy)
    guard url == again else {
        fail("the path sends \(String(describing: url)), then \(String(describing: again))", path, base)
    }
    guard let url else { return }  // refused
    checkSameOrigin(url, as: base, path)
    if let curl = Curl.parts(of: url.absoluteString), let baseCurl = Curl.parts(of: base.absoluteString),
        curl.user != baseCurl.user || curl.password != baseCurl.password
    {
        fail("the path sends \(url.absoluteString), which libcurl reads as \(curl)", path, base)
    }
    if let resolved = URL(string: path, relativeTo: base)?.absoluteURL, let expected = withLowercaseScheme(resolved),
        expected.absoluteString != url.absoluteString
    {
        fail("the path sends \(url.absoluteString); URL resolves it to \(expected.absoluteString)", path, base)
    }
}

/// `url` with its scheme in lowercase, as Kilo sends it (Linux's URLSession refuses `HTTP:`).
private func withLowercaseScheme(_ url: URL) -> URL? {
    guard let scheme = url.scheme, scheme != scheme.lowercased() else { return url }
    var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
    components?.scheme = scheme.lowercased()
    return components?.url
}

/// The URL `proxy` sends a GET for `path` to, or `nil` when it refuses the path.
private func requestedURL(_ path: String, proxy: WebServiceProxy) -> URL? {
    final class Outcome: @unchecked Sendable {
        // `@unchecked Sendable`: written by the task before it signals, read after the wait.
        var url: URL?
        var error: (any Error)?
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        do {
            try await proxy.invoke(.get, path: path)
        } catch let error as FakeTransport.UnexpectedRequest {
            outcome.url = error.request.url
        } catch {
            outcome.error = error
        }
    }
    done.wait()
    if let error = outcome.error {
        guard error as? RequestError == .invalidPath(path) || error as? RequestError == .pathLeavesBaseURL(path) else {
            fatalError("Kilo origin fuzz: the path \(String(reflecting: path)) threw \(String(reflecting: error))")
        }
    }
    return outcome.url
}

/// Fails unless `url` goes where `origin` does: the same scheme, host and port as libcurl reads
/// them, and as `URL` does.
private func checkSameOrigin(_ url: URL, as origin: URL, _ text: String) {
    guard let originCurl = Curl.parts(of: origin.absoluteString) else {
        fatalError("Kilo origin fuzz: libcurl cannot read \(origin.absoluteString)")
    }
    if let curl = Curl.parts(of: url.absoluteString), curl.origin != originCurl.origin {
        fail(
            "\(url.absoluteString) goes with the credentials of \(origin.absoluteString), "
                + "but libcurl sends it to \(curl.origin), not \(originCurl.origin)",
            text,
            origin
        )
    }
    if connection(of: url) != connection(of: origin) {
        fail(
            "\(url.absoluteString) goes with the credentials of \(origin.absoluteString), "
                + "but URL reads its host and port as \(String(describing: connection(of: url)))",
            text,
            origin
        )
    }
}

/// What async-http-client connects to for a URL: its scheme, host and port as `URL` reads them.
private func connection(of url: URL) -> String? {
    guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
    return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
}

private func fail(_ message: String, _ text: String, _ url: URL) -> Never {
    fatalError("Kilo origin fuzz: \(message)\n  text: \(String(reflecting: text))\n  from: \(url.absoluteString)")
}

/// Turns fuzz bytes into text: a byte below 0x80 is that ASCII character, and one above is one of
/// ``tokens``, the pieces that make URL parsers disagree.
enum Text {
    static let tokens = [
        "http://", "https://", "//", "@", "\\", ":", "%2F", "%40", "%5C", "%00", "#", "?", "[", "]", "::1",
        "evil.com", "api.example.com", "API.EXAMPLE.COM", "..", "/", " ", "\t", "\r\n", "\u{3002}", "\u{FF20}",
        "ü", "%2E", ":443", ":80", ":99999999999999999999", "user:pass@", "127.0.0.1",
    ]

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            if byte < 0x80 {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += tokens[Int(byte & 0x1F)]
            }
        }
        return text
    }
}
