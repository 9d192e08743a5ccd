import Foundation
import KiloTransport

/// libFuzzer's entry point: reads the bytes as a hostile server's `Location`, and checks that
/// following it as Kilo's transports do (``Origin/redirectTarget(of:from:)``, then credentials
/// kept only on the same ``Origin``, else the URL's user and password taken off) never sends a
/// credential to another origin, as libcurl (URLSession on Linux) and `URL` (async-http-client)
/// read the URL that is requested.
///
/// Any broken property ends in `fatalError`, which libFuzzer reports as a crash and saves the
/// input for. See Fuzz/README.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let from = redirected[Int(bytes.first ?? 0) % redirected.count]
    let location = Location.text(bytes.dropFirst())
    checkRedirect(to: location, from: from)
    return 0
}

/// The URLs a redirect comes from: with credentials in them, ports named and not, IPv6 and IPv4
/// hosts, an internationalized one.
private let redirected = [
    "https://user:secret@api.example.com/a/b?q=1", "http://api.example.com:8080/a/b/",
    "https://[::1]:8443/x/y", "http://127.0.0.1/a", "https://xn--bcher-kva.example/a",
    "http://user@API.Example.com/", "https://api.example.com/",
].map { URL(string: $0)! }

private func checkRedirect(to location: String, from: URL) {
    guard let target = Origin.redirectTarget(of: location, from: from) else { return }  // not followed
    guard let fromCurl = Curl.parts(of: from.absoluteString) else {
        fatalError("Kilo redirect fuzz: libcurl cannot read \(from.absoluteString)")
    }
    let curl = Curl.parts(of: target.absoluteString)
    if let curl, !["http", "https"].contains(curl.scheme.lowercased()) {
        fail("redirectTarget gave \(target.absoluteString), which libcurl reads as \(curl)", location, from)
    }
    if Origin(from)?.contains(target) == true {
        // Credentials go along: the request must go to the same origin.
        if let curl, curl.origin != fromCurl.origin {
            fail(
                "\(target.absoluteString) keeps the credentials of \(from.absoluteString) as its origin, "
                    + "but libcurl sends it to \(curl.origin), not \(fromCurl.origin)",
                location,
                from
            )
        }
        if connection(of: target) != connection(of: from) {
            fail(
                "\(target.absoluteString) keeps the credentials of \(from.absoluteString) as its origin, "
                    + "but URL reads its host and port as \(String(describing: connection(of: target)))",
                location,
                from
            )
        }
        return
    }
    // Another origin: no user or password may go with it.
    guard let cleared = Origin.withoutUserInfo(target) else { return }  // not followed
    if let curl = Curl.parts(of: cleared.absoluteString), curl.user != nil || curl.password != nil {
        fail("\(cleared.absoluteString), cleared of user info, sends \(curl)", location, from)
    }
    if cleared.user != nil || cleared.password != nil {
        fail("\(cleared.absoluteString), cleared of user info, has a user or password for URL", location, from)
    }
}

/// What async-http-client connects to for a URL: its scheme, host and port as `URL` reads them.
private func connection(of url: URL) -> String? {
    guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
    return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
}

private func fail(_ message: String, _ location: String, _ from: URL) -> Never {
    fatalError(
        "Kilo redirect fuzz: \(message)\n  Location: \(String(reflecting: location))\n  from: \(from.absoluteString)"
    )
}

/// Turns fuzz bytes into a `Location`: a byte below 0x80 is that ASCII character, and one above
/// is one of ``tokens``, the pieces that make URL parsers disagree.
enum Location {
    static let tokens = [
        "http://", "https://", "//", "@", "\\", ":", "%2F", "%40", "%5C", "%00", "#", "?", "[", "]", "::1",
        "evil.com", "api.example.com", "API.EXAMPLE.COM", "..", "/", " ", "\t", "\r\n", "\u{3002}", "\u{FF20}",
        "ü", "%2E", ":443", ":80", ":99999999999999999999", "user:pass@", "127.0.0.1",
    ]

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
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
