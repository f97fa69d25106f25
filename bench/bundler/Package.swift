// swift-tools-version: 6.2
// The bundling benchmark's executable: Depot's DepotBundles, DepotCore and DepotSystem sources and the CZlib and
// CLibdeflate module maps (symlinked from the repository's Sources/, so nothing is copied) with a small command-line
// front end. Kept apart from the root package so the benchmark builds in seconds without the server's dependencies.
// See bench/bundling.sh.
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
        .systemLibrary(name: "CLibdeflate", path: "Sources/CLibdeflate", pkgConfig: "libdeflate"),
        .target(name: "DepotCore", path: "Sources/DepotCore", swiftSettings: swiftSettings),
        .target(name: "DepotSystem", path: "Sources/DepotSystem", swiftSettings: swiftSettings),
        .target(
            name: "DepotBundles",
            dependencies: ["DepotCore", "DepotSystem", "CZlib", "CLibdeflate", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/DepotBundles",
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "bundler", dependencies: ["DepotBundles"], swiftSettings: swiftSettings),
    ]
)
