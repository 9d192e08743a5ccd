import Foundation
import Kilo
import Testing

/// Default certificate validation stays on: a server on 127.0.0.1 with a self-signed certificate
/// (the fault server's TLS listener) is refused, and no request reaches it.
@Suite(
    .enabled(if: FaultServer.tlsURL != nil, "needs KILO_FAULT_TLS_URL (run Scripts/test.sh)"),
    .timeLimit(.minutes(1))
)
struct TLSTests {
    /// The codes that mean "the TLS handshake failed or was refused". Apple's URLSession reports
    /// an untrusted certificate as -1202 (or -1200, or -999 when a delegate declines it).
    /// Linux's URLSession (swift-corelibs-foundation 6.3.1) reports libcurl's verification
    /// failure as -1 (`unknown`), "SSL certificate problem: self-signed certificate", which the
    /// transport must turn into one of these.
    static let tlsFailureCodes: Set<URLError.Code> = [
        .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
        .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
        .clientCertificateRequired, .cancelled,
    ]

    private let tlsURL: URL

    init() throws {
        tlsURL = try #require(FaultServer.tlsURL, "KILO_FAULT_TLS_URL is not set")
    }

    private func expectRefused(by proxy: WebServiceProxy, mode: String) async throws {
        let key = FaultServer.makeKey("tls-\(mode)")
        let caught = await #expect(throws: URLError.self) {
            let _: FaultServer.OK = try await proxy.invoke(.get, path: "ok", arguments: ["key": key])
        }
        let error = try #require(caught)
        print("TLSTests (\(mode)): untrusted certificate gave URLError", error.code.rawValue, error.localizedDescription)
        #expect(Self.tlsFailureCodes.contains(error.code), "URLError \(error.code.rawValue) is not a TLS failure")
        #expect(try await FaultServer.count(key) == 0)
    }

    @Test func untrustedCertificateIsRefused() async throws {
        try await expectRefused(by: WebServiceProxy(session: Servers.session, baseURL: tlsURL), mode: "session")
    }

    @Test func untrustedCertificateIsRefusedByAProxyWithItsOwnSession() async throws {
        try await expectRefused(by: WebServiceProxy(configuration: .ephemeral, baseURL: tlsURL), mode: "owned")
    }

    /// The two kinds of proxy: on a session of the caller's, and with a session of its own.
    static let proxyKinds = ["session", "owned"]

    private static func makeProxy(_ kind: String, baseURL: URL) -> WebServiceProxy {
        kind == "owned"
            ? WebServiceProxy(configuration: .ephemeral, baseURL: baseURL)
            : WebServiceProxy(session: Servers.session, baseURL: baseURL)
    }

    /// `baseURL` with `https` for its scheme, on the same port.
    private static func https(_ baseURL: URL?) throws -> URL {
        var components = try #require(baseURL.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) })
        components.scheme = "https"
        return try #require(components.url)
    }

    /// A TLS client hello to a server that answers in plain HTTP (httpbin) fails the handshake:
    /// libcurl says "wrong version number", which Linux's URLSession reports as `.unknown`.
    @Test(arguments: proxyKinds)
    func tlsToAPlainHTTPServerIsASecureConnectionFailure(kind: String) async throws {
        let proxy = Self.makeProxy(kind, baseURL: try Self.https(Servers.httpbin))
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.get, path: "get")
        }
        #expect(error?.code == .secureConnectionFailed, "URLError \(error?.code.rawValue ?? 0)")
    }

    /// A connection reset during the handshake (the fault server's plain port resets a TLS
    /// client) is a lost connection, as it is over plain HTTP: Linux's URLSession reports it as
    /// `.unknown` ("Recv failure: Connection reset by peer") over TLS alone.
    @Test(arguments: proxyKinds)
    func aConnectionResetOverTLSIsALostConnection(kind: String) async throws {
        let proxy = Self.makeProxy(kind, baseURL: try Self.https(FaultServer.url))
        let error = await #expect(throws: URLError.self) {
            try await proxy.invoke(.get, path: "ok")
        }
        #expect(error?.code == .networkConnectionLost, "URLError \(error?.code.rawValue ?? 0)")
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.code == URLError.unknown.rawValue)
    }

    @Test func untrustedCertificateIsRefusedThroughCallback() async throws {
        let proxy = WebServiceProxy(session: Servers.session, baseURL: tlsURL)
        proxy.callbackQueue = CallbackQueues.make("tls.callback")
        let outcome: CallbackOutcome<Void> = try await callback {
            proxy.invoke(.get, path: "ok", resultHandler: $0)
        }
        let error = try #require(outcome.error as? URLError)
        #expect(Self.tlsFailureCodes.contains(error.code), "URLError \(error.code.rawValue) is not a TLS failure")
    }
}
