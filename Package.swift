// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kilo",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "Kilo", targets: ["Kilo"]),
        .library(name: "KiloEncoding", targets: ["KiloEncoding"]),
        .executable(name: "kilo-example", targets: ["KiloExample"]),
    ],
    targets: [
        .target(name: "KiloEncoding"),
        .target(name: "KiloTransport"),
        .target(name: "KiloCore", dependencies: ["KiloTransport"]),
        .target(name: "Kilo", dependencies: ["KiloEncoding", "KiloTransport", "KiloCore"]),
        .executableTarget(name: "KiloExample", dependencies: ["Kilo"], path: "Examples/KiloExample"),
        .testTarget(name: "KiloEncodingTests", dependencies: ["KiloEncoding"]),
        .testTarget(name: "KiloTransportTests", dependencies: ["KiloTransport"]),
        .testTarget(name: "KiloCoreTests", dependencies: ["KiloCore"]),
        .testTarget(name: "KiloTests", dependencies: ["Kilo"]),
        .testTarget(name: "KiloIntegrationTests", dependencies: ["Kilo"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    // The integration tests play the part of a user's program, including Kilo 3.x code that
    // spells `Error` without `any`, so they build with the language mode's defaults.
    if target.name != "KiloIntegrationTests" {
        settings.append(.enableUpcomingFeature("ExistentialAny"))
    }
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
