// swift-tools-version:6.0
import PackageDescription

// Kilo's SwiftNIO transport, in a package of its own so that the Kilo package stays free of
// dependencies. It builds against the Kilo package in this repository, by path.
let package = Package(
    name: "KiloAsyncHTTPClient",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "KiloAsyncHTTPClient", targets: ["KiloAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "Kilo", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
    ],
    targets: [
        .target(
            name: "KiloAsyncHTTPClient",
            dependencies: [
                .product(name: "Kilo", package: "Kilo"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "KiloAsyncHTTPClientTests",
            dependencies: [
                "KiloAsyncHTTPClient",
                .product(name: "Kilo", package: "Kilo"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // Kilo's own integration suite (Tests/KiloIntegrationTests at the repository root, linked as
        // Shared/), built with KILO_ASYNC_HTTP_CLIENT so that Servers.makeProxy(baseURL:) sends
        // through AsyncHTTPClientTransport, plus TestHTTPClient.swift.
        .testTarget(
            name: "KiloAsyncHTTPClientIntegrationTests",
            dependencies: [
                "KiloAsyncHTTPClient",
                .product(name: "Kilo", package: "Kilo"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: [
                // About URLSession itself: a proxy on URLSession.shared, as Kilo 3.x code makes.
                "Shared/Kilo3CompatibilityTests.swift",
                // Its proxies are URLSession's by design (a caller's session, one of Kilo's own);
                // Tests/KiloAsyncHTTPClientTests/FaultTests covers TLS through this transport.
                "Shared/TLSTests.swift",
            ],
            swiftSettings: [.define("KILO_ASYNC_HTTP_CLIENT")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    // As in the Kilo package: the shared integration suite plays a user's program, including
    // Kilo 3.x code that spells `Error` without `any`, so it builds with the language defaults.
    if target.name != "KiloAsyncHTTPClientIntegrationTests" {
        settings.append(.enableUpcomingFeature("ExistentialAny"))
    }
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
