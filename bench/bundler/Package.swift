// swift-tools-version: 6.2
// The bundling benchmark's executable: Depot's DepotBundles, DepotCore and DepotSystem sources (symlinked from the
// repository's Sources/, so nothing is copied) with a small command-line front end. Kept apart from the root
// package so the benchmark builds in seconds without the server's dependencies. See bench/bundling.sh.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "bundler",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2")
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(name: "DepotCore", path: "Sources/DepotCore", swiftSettings: swiftSettings),
        .target(name: "DepotSystem", path: "Sources/DepotSystem", swiftSettings: swiftSettings),
        .target(
            name: "DepotBundles",
            dependencies: ["DepotCore", "DepotSystem", "CZlib", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/DepotBundles",
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "bundler", dependencies: ["DepotBundles"], swiftSettings: swiftSettings),
    ]
)
