import AsyncHTTPClient
import KiloAsyncHTTPClient

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
}
