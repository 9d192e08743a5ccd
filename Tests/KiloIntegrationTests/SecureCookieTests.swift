import Foundation
import Kilo
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if KILO_ASYNC_HTTP_CLIENT
    import KiloAsyncHTTPClient
#endif

/// A `Secure` cookie that an HTTPS server sets never goes over plain HTTP: not on a redirect from
/// HTTPS to HTTP that keeps the body (a POST answered with 307), and not on a later request.
///
/// The HTTPS server is the fault server's listener with a private CA (`KILO_TRUSTED_TLS_URL`); the
/// HTTP one is its plain listener (`KILO_FAULT_URL`): the same host, 127.0.0.1, on another port,
/// so the cookies it sets are the HTTP listener's too. Its `/cookies/set` sets the cookies and
/// redirects; `/cookies/echo` tells which cookies, and how many body bytes, arrived.
@Suite(
    .enabled(
        if: FaultServer.trustedTLSURL != nil && FaultServer.url != nil,
        "needs KILO_TRUSTED_TLS_URL and KILO_FAULT_URL (run Scripts/test.sh)"
    ),
    .timeLimit(.minutes(1))
)
struct SecureCookieTests {
    /// What `/cookies/echo` received.
    private struct Echo: Decodable {
        var names: [String]
        var received: Int
    }

    private let httpsURL: URL
    private let httpURL: URL
    /// Makes this test's cookie names its own.
    private let tag = UUID().uuidString.prefix(8)

    init() throws {
        httpsURL = try #require(FaultServer.trustedTLSURL, "KILO_TRUSTED_TLS_URL is not set")
        httpURL = try #require(FaultServer.url, "KILO_FAULT_URL is not set")
    }

    private var plainName: String { "plain\(tag)0" }
    private var secureName: String { "secure\(tag)0" }

    /// Sets the plain cookie over HTTPS, then POSTs a body to an HTTPS URL that sets the `Secure`
    /// cookie and redirects with 307 to `/cookies/echo` over HTTP; returns what that received,
    /// then what a later request to `/cookies/echo` over HTTP, and one over HTTPS, received.
    private func exchange(through transport: any Transport) async throws -> (
        redirected: Echo, laterHTTP: Echo, laterHTTPS: Echo
    ) {
        let plain = try url("cookies/set?prefix=plain\(tag)", on: httpsURL)
        #expect(try await transport.send(TransportRequest(method: .get, url: plain)).statusCode == 200)
        let echo = try url("cookies/echo", on: httpURL).absoluteString
        let query = [
            "prefix=secure\(tag)", "attributes=%3B%20Secure", "code=307",
            "location=" + (echo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? echo),
        ]
        let redirect = TransportRequest(
            method: .post,
            url: try url("cookies/set?" + query.joined(separator: "&"), on: httpsURL),
            headers: ["Content-Type": "text/plain"],
            body: .data(Data("hello".utf8))
        )
        let redirected = try await decode(transport.send(redirect))
        let laterHTTP = try await decode(
            transport.send(TransportRequest(method: .get, url: url("cookies/echo", on: httpURL)))
        )
        let laterHTTPS = try await decode(
            transport.send(TransportRequest(method: .get, url: url("cookies/echo", on: httpsURL)))
        )
        return (redirected, laterHTTP, laterHTTPS)
    }

    private func url(_ path: String, on base: URL) throws -> URL {
        try #require(URL(string: path, relativeTo: base)?.absoluteURL)
    }

    private func decode(_ response: TransportResponse) throws -> Echo {
        #expect(response.statusCode == 200)
        return try JSONDecoder().decode(Echo.self, from: response.body)
    }

    #if KILO_ASYNC_HTTP_CLIENT
        /// async-http-client keeps no cookies, so none go anywhere; the redirect keeps the body.
        @Test func noCookieGoesOverHTTPThroughAsyncHTTPClient() async throws {
            let client = try #require(TestHTTPClient.trustingTestCA, "KILO_TRUSTED_TLS_CA is not set")
            let (redirected, laterHTTP, laterHTTPS) = try await exchange(
                through: AsyncHTTPClientTransport(client: client)
            )
            #expect(redirected.received == 5)
            #expect(redirected.names.isEmpty)
            #expect(laterHTTP.names.isEmpty)
            #expect(laterHTTPS.names.isEmpty)
        }
    #else
        /// A transport on a session of the caller's, with a cookie storage of this suite's own (not
        /// ``Servers/session``'s, which every other suite's requests to 127.0.0.1 share).
        private static let callersTransport = URLSessionTransport(session: URLSession(configuration: .ephemeral))
        /// A transport with a session of its own.
        private static let owningTransport = URLSessionTransport(configuration: .ephemeral)

        /// Whether URLSession trusts the fault server's private CA. On Linux it trusts only
        /// libcurl's built-in CA file, which `Scripts/test.sh` gives it in a private mount namespace
        /// (`kilo_trusting_test_ca` in `Scripts/servers.sh`), saying so with
        /// `KILO_TRUSTED_TLS_CA_IN_CURL_BUNDLE=1`.
        private static let urlSessionTrustsTestCA =
            ProcessInfo.processInfo.environment["KILO_TRUSTED_TLS_CA_IN_CURL_BUNDLE"] == "1"

        /// Over HTTPS both cookies go; over HTTP only the plain one, on the 307 that keeps the
        /// body (a new task of Kilo's on Linux) and on a later request, on your session and on one
        /// of Kilo's own. On Linux, Kilo chooses the cookies of both (swift-corelibs-foundation
        /// 6.3.1 sent a `Secure` one over HTTP): without its `Secure` checks, in
        /// `HTTPCookie.cookies(_:sentTo:at:)` and in `CookiePolicy.cookieField(carrying:to:)`, the
        /// `Secure` cookie goes over HTTP both times.
        @Test(
            .enabled(
                if: urlSessionTrustsTestCA,
                """
                needs URLSession to trust KILO_TRUSTED_TLS_CA: on Linux only libcurl's built-in CA file \
                counts, which Scripts/test.sh extends in a private mount namespace when run as root \
                with unshare (KILO_TRUSTED_TLS_CA_IN_CURL_BUNDLE=1)
                """
            ),
            arguments: ["session", "owned"]
        )
        func aSecureCookieNeverGoesOverHTTP(kind: String) async throws {
            let transport = kind == "owned" ? Self.owningTransport : Self.callersTransport
            let (redirected, laterHTTP, laterHTTPS) = try await exchange(through: transport)
            #expect(redirected.received == 5, "the 307 kept the body")
            #expect(redirected.names == [plainName])
            #expect(laterHTTP.names == [plainName])
            #expect(laterHTTPS.names.sorted() == [plainName, secureName].sorted(), "the Secure cookie was kept")
        }
    #endif
}
