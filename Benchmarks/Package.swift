// swift-tools-version:6.0
// Kilo's benchmarks: a package of their own, so that the library keeps no dependencies.
// Run them with `bash Benchmarks/run.sh` from the repository root (see Docs/Performance.md).
import PackageDescription

let package = Package(
    name: "KiloBenchmarks",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "kilo-bench", targets: ["KiloBench"]),
        .executable(name: "kilo-bench-server", targets: ["KiloBenchServer"]),
        .executable(name: "kilo-bench-large", targets: ["KiloBenchLarge"]),
        .executable(name: "kilo-bench-sse", targets: ["KiloBenchSSE"]),
    ],
    dependencies: [
        .package(name: "Kilo", path: ".."),
        // Kilo's SwiftNIO transport (section b's AsyncHTTPClientTransport rows), by path as well.
        .package(name: "KiloAsyncHTTPClient", path: "../Transports/KiloAsyncHTTPClient"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The server-sent event parser that kilo-bench-sse compares Kilo's with.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    ],
    targets: [
        .executableTarget(
            name: "KiloBenchServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Counts the calling thread's heap allocations, for the encoders' allocations per operation,
        // and, for the memory check, the heap blocks the whole process keeps.
        .target(name: "MallocCounter"),
        // A function that runs a given number of cache lines of code, each one far from the last
        // (the experiment rows that measure what code of one's own costs per request).
        .target(name: "ColdCode"),
        // The clock, statistics and table printing that both benchmark executables use.
        .target(name: "BenchmarkSupport"),
        .executableTarget(
            name: "KiloBench",
            dependencies: [
                "BenchmarkSupport",
                "ColdCode",
                "MallocCounter",
                .product(name: "Kilo", package: "Kilo"),
                .product(name: "KiloAsyncHTTPClient", package: "KiloAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // 1 GiB uploads and downloads, each measurement in a child process of its own (peak RSS).
        // No MallocCounter here: its malloc wrappers must not touch these figures.
        .executableTarget(
            name: "KiloBenchLarge",
            dependencies: [
                "BenchmarkSupport", .product(name: "Kilo", package: "Kilo"),
                .product(name: "KiloAsyncHTTPClient", package: "KiloAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Server-sent event parsing throughput, in memory: Kilo's parser, swift-openapi-runtime's,
        // and a bare split on blank lines; with --live, end to end over loopback through each
        // transport from a NIO server in the same process.
        .executableTarget(
            name: "KiloBenchSSE",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Kilo", package: "Kilo"),
                .product(name: "KiloAsyncHTTPClient", package: "KiloAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// The C targets, which take no Swift settings.
let cTargets: Set = ["MallocCounter", "ColdCode"]

for target in package.targets where !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
