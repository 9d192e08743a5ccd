import AsyncHTTPClient
import Foundation
import KiloAsyncHTTPClient
import NIOSSL

/// The one `HTTPClient` that Kilo's integration suite sends through when this package builds it
/// (see `Shared/Support/Servers.swift`), configured as users are told to configure theirs.
///
/// It lives as long as the test process, so it is never shut down; a program that makes its own
/// client shuts it down when it has sent its last request.
enum TestHTTPClient {
    static let shared = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: AsyncHTTPClientTransport.recommendedConfiguration
    )

    /// A client configured as ``shared`` that also trusts the fault server's private CA (the
    /// certificate at `KILO_TRUSTED_TLS_CA`), as a user trusts a private CA of theirs; `nil` without
    /// that variable. Never shut down either.
    static let trustingTestCA: HTTPClient? = ProcessInfo.processInfo.environment["KILO_TRUSTED_TLS_CA"].map {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        var tls = configuration.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file($0)]
        configuration.tlsConfiguration = tls
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
