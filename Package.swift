// swift-tools-version: 6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The byte path's targets: in release, accesses are not checked for exclusivity at run time (about 1,700 of
/// 40,000 instructions per range answer, BENCHMARKS.md). Debug builds, and so the tests, keep the checks.
let bytePathSettings: [SwiftSetting] =
    swiftSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "depot",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "depot", targets: ["depot"]),
        .library(name: "DepotClient", targets: ["DepotClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/CoreOffice/XMLCoder.git", from: "0.18.2"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(
            name: "CLibdeflate", path: "Sources/CLibdeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .target(name: "DepotCore", swiftSettings: swiftSettings),
        .target(name: "DepotAPI", swiftSettings: swiftSettings),
        .target(name: "DepotHTTP", dependencies: ["DepotCore"], swiftSettings: bytePathSettings),
        .target(
            name: "DepotBundles",
            dependencies: [
                "DepotCore", "DepotSystem", "CZlib", "CLibdeflate",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "DepotSystem", swiftSettings: swiftSettings),
        .target(
            name: "DepotOutboundHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "DepotArchives", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        .target(
            name: "DepotTrust",
            dependencies: [
                "DepotCore", "DepotSystem",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotAppStore",
            dependencies: [
                "DepotOutboundHTTP",
                "DepotTrust",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotDoubleSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotAppStoreDouble",
            dependencies: [
                "DepotDoubleSupport",
                "DepotTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotObjectStore",
            dependencies: [
                "DepotCore", "DepotSystem", "DepotOutboundHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "XMLCoder", package: "XMLCoder"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotGooglePlay",
            dependencies: [
                "DepotOutboundHTTP",
                "DepotTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotGooglePlayDouble",
            dependencies: [
                "DepotDoubleSupport",
                "DepotTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotLedger",
            dependencies: [
                "DepotSystem",
                "DepotCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotServices",
            dependencies: [
                "DepotSystem",
                "DepotCore", "DepotAPI", "DepotLedger", "DepotTrust", "DepotBundles", "DepotArchives", "DepotAppStore",
                "DepotGooglePlay", "DepotObjectStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotOrigin",
            dependencies: [
                "DepotCore", "DepotAPI", "DepotHTTP", "DepotTrust",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: bytePathSettings
        ),
        .target(
            name: "DepotTelemetry",
            dependencies: [
                "DepotAPI", "DepotBundles", "DepotCore", "DepotLedger", "DepotServices", "DepotOrigin", "CMalloc",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotSettings",
            dependencies: [
                "DepotCore", "DepotBundles", "DepotServices", "DepotOrigin", "DepotTrust", "DepotGooglePlay", "DepotObjectStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotConsole",
            dependencies: [
                "DepotCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotServer",
            dependencies: [
                "DepotOutboundHTTP",
                "DepotCore", "DepotHTTP", "DepotBundles", "DepotTrust", "DepotLedger", "DepotArchives", "DepotAppStore",
                "DepotGooglePlay", "DepotAPI", "DepotServices", "DepotOrigin", "DepotObjectStore", "DepotSettings", "DepotTelemetry",
                "DepotConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotClient",
            dependencies: [
                "DepotAPI", "DepotHTTP", "DepotArchives",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "depot",
            dependencies: [
                "DepotServer", "DepotServices", "DepotSettings", "DepotTelemetry", "DepotClient", "DepotCore", "DepotTrust", "DepotLedger",
                "DepotSystem", "DepotBundles", "DepotAppStoreDouble", "DepotGooglePlayDouble", "DepotArchives", "DepotObjectStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotServicesTests",
            dependencies: [
                "DepotServices", "DepotBundles", "DepotCore", "DepotTestSupport", "DepotLedger", "DepotTrust", "DepotGooglePlay",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DepotCoreTests", dependencies: ["DepotCore", "DepotTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DepotLedgerTests",
            dependencies: [
                "DepotLedger", "DepotCore", "DepotTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotObjectStoreTests",
            dependencies: [
                "DepotObjectStore", "DepotCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotGooglePlayTests",
            dependencies: [
                "DepotGooglePlay", "DepotGooglePlayDouble",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotAppStoreTests",
            dependencies: [
                "DepotAppStore", "DepotAppStoreDouble", "DepotTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DepotClientTests", dependencies: ["DepotClient", "DepotTestSupport"], swiftSettings: swiftSettings),
        .target(
            name: "DepotTestSupport",
            dependencies: ["DepotCore", .product(name: "CryptoExtras", package: "swift-crypto")],
            path: "Tests/DepotTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "DepotHTTPTests", dependencies: ["DepotHTTP", "DepotTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DepotArchivesTests", dependencies: ["DepotArchives", "DepotTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DepotBundlesTests",
            dependencies: [
                "DepotBundles", "DepotCore", "DepotSystem", "DepotTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotTrustTests",
            dependencies: [
                "DepotTrust", "DepotCore", "DepotTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotServerTestSupport",
            dependencies: [
                "DepotBundles",
                "DepotServices", "DepotOrigin", "DepotSettings",
                "DepotServer", "DepotTrust", "DepotHTTP", "DepotCore", "DepotClient", "DepotAppStoreDouble",
                "DepotGooglePlayDouble", "DepotLedger", "DepotObjectStore", "DepotTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/DepotServerTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotServerTests",
            dependencies: [
                "DepotAPI", "DepotServices", "DepotOrigin", "DepotSettings", "DepotTelemetry",
                "DepotServer", "DepotTrust", "DepotHTTP", "DepotCore", "DepotAppStore",
                "DepotLedger", "DepotTestSupport", "DepotServerTestSupport", "DepotConsole", "DepotGooglePlayDouble",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotOriginTests",
            dependencies: [
                "DepotOrigin", "DepotAPI", "DepotCore", "DepotHTTP", "DepotTrust", "DepotTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotTelemetryTests",
            dependencies: [
                "DepotTelemetry", "DepotCore", "DepotLedger", "DepotOrigin", "DepotTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DepotAPITests", dependencies: ["DepotAPI", "DepotTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DepotSettingsTests",
            dependencies: [
                "DepotSettings", "DepotServices", "DepotCore", "DepotServerTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotIntegrationTests",
            dependencies: [
                "DepotAPI", "DepotServices", "DepotOrigin", "DepotSettings", "DepotTelemetry",
                "DepotServer", "DepotTrust", "DepotHTTP", "DepotCore", "DepotClient", "DepotAppStoreDouble",
                "DepotGooglePlayDouble", "DepotLedger", "DepotObjectStore", "DepotTestSupport", "DepotServerTestSupport",
                "DepotBundles", "DepotConsole",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotSystemTests",
            dependencies: [
                "DepotServices", "DepotOrigin", "DepotSettings",
                "DepotServer", "DepotTrust", "DepotCore", "DepotClient", "DepotAppStoreDouble", "DepotGooglePlayDouble", "DepotGooglePlay",
                "DepotAppStore",
                "DepotLedger", "DepotObjectStore", "DepotTestSupport", "DepotArchives", "DepotServerTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
