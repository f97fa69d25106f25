import DepotSettings
import DepotCore
@testable import DepotOrigin
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing

/// A Depot server on 127.0.0.1 with a free port, over packs made for the test, shut down gracefully at the end.
struct LiveServer {
    let port: Int
    let application: DepotApplication
    let scratch: ScratchDirectory
    /// Starts a graceful shutdown, as SIGTERM would.
    let shutdown: @Sendable () async -> Void
    /// `https` when the server speaks TLS.
    var scheme = "http"

    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    /// The operator token the test configuration accepts.
    static let adminToken = "test-admin"

    /// The grant key secret the test configuration uses.
    static let secret = Array(repeating: UInt8(7), count: 32)

    /// A pack to put under the test's content directory.
    struct PackSpec {
        var directory: String
        var productId: String
        var contentId: String? = nil
        var version = "1.0"
        var publishedAt = "2026-03-01T09:00:00Z"
        var files: [String: [UInt8]]
    }

    /// Two products: a non-consumable with a text file and a random 6 MiB file, and a subscription issue.
    static let standardPacks: [PackSpec] = {
        var random = SeededBytes(seed: 42)
        let text = Array(String(repeating: "Depot serves bundles. ", count: 4000).utf8)
        return [
            PackSpec(
                directory: "game/level1", productId: "com.example.level1",
                files: [
                    "maps/cave.json": Array("{\"tiles\": [[0,1,1,0]]}".utf8), "notes.txt": text,
                    "media/big.bin": random.bytes(6 << 20),
                ]),
            PackSpec(
                directory: "magazine/2026-09", productId: "com.example.monthly",
                contentId: "com.example.monthly.2026-09", publishedAt: "2026-09-01T06:00:00Z",
                files: ["article.md": text, "cover.bin": random.bytes(50_000)]),
        ]
    }()

    /// Starts a server over `packs`, runs `body`, then shuts the server down and removes the files. With `tls`, the
    /// server speaks HTTPS with those certificates (`base` says `https`).
    ///
    /// The idle timeout is generous by default: on a loaded machine (the whole suite runs in parallel) a test
    /// can pause for seconds between two requests on one connection; tests of the timeout set their own.
    static func with(
        _ name: String = #function, packs: [PackSpec] = standardPacks, idleTimeoutSeconds: Int = 120,
        requestTimeoutSeconds: Int = 30, settings: String = "", serverSettings: String = "",
        tls: TestCertificates? = nil, configure: (ScratchDirectory) throws -> Void = { _ in },
        body: (LiveServer) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        var serverSettings = serverSettings
        if let tls {
            let members = try tls.write(into: scratch)
            serverSettings = serverSettings.isEmpty ? members : serverSettings + ", " + members
        }
        let application = try await prepared(
            in: scratch, packs: packs, idleTimeoutSeconds: idleTimeoutSeconds, requestTimeoutSeconds: requestTimeoutSeconds,
            settings: settings, serverSettings: serverSettings, configure: configure)
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        let running = try await ListeningGroup.start(logger: logger) { ready in application.makeApplication(onRunning: ready) }
        do {
            try await body(
                LiveServer(
                    port: running.port, application: application, scratch: scratch,
                    shutdown: { await running.group.triggerGracefulShutdown() }, scheme: tls == nil ? "http" : "https"))
        } catch {
            await running.stopAfterFailure()
            throw error
        }
        try await running.stop()
    }

    /// The test configuration and `packs` written into `scratch`, and an application prepared on them (SQLite ledger
    /// in `scratch/data`), not listening. `configure` may rewrite the configuration written before it is loaded.
    static func prepared(
        in scratch: ScratchDirectory, packs: [PackSpec] = standardPacks, idleTimeoutSeconds: Int = 120,
        requestTimeoutSeconds: Int = 30, settings: String = "", serverSettings: String = "",
        configure: (ScratchDirectory) throws -> Void = { _ in }
    ) async throws -> DepotApplication {
        try writeConfiguration(
            in: scratch, idleTimeoutSeconds: idleTimeoutSeconds, requestTimeoutSeconds: requestTimeoutSeconds,
            settings: settings, serverSettings: serverSettings)
        try configure(scratch)
        for pack in packs {
            var manifest = "{\"productId\": \"\(pack.productId)\", \"version\": \"\(pack.version)\", "
            if let contentId = pack.contentId { manifest += "\"contentId\": \"\(contentId)\", " }
            manifest += "\"publishedAt\": \"\(pack.publishedAt)\"}"
            try scratch.write("content/\(pack.directory)/pack.json", manifest)
            for (path, bytes) in pack.files { try scratch.write("content/\(pack.directory)/Contents/\(path)", bytes) }
        }
        var configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(
                configPath: scratch.path + "/Config", port: 0, dataDirectory: scratch.path + "/data",
                contentDirectory: scratch.path + "/content"),
            environment: [:])
        // A loaded test machine can hold a PostgreSQL statement past serve's 5 s; these tests do not measure it.
        configuration.ledgerWaitSeconds = max(configuration.ledgerWaitSeconds, 60)
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        return try await DepotApplication.prepare(configuration, logger: logger)
    }

    /// Writes the test configuration; `settings` adds members to `depot.json`'s top-level object
    /// (`"edge": {...}, "caching": {...}`), `serverSettings` to its `server` object (`"maxConnections": 3`).
    static func writeConfiguration(
        in scratch: ScratchDirectory, idleTimeoutSeconds: Int, requestTimeoutSeconds: Int = 30, settings: String = "",
        serverSettings: String = ""
    ) throws {
        let secret = Data(secret).base64EncodedString()
        try scratch.write(
            "Config/depot.json",
            """
            {"grants": {"activeKeyId": "test", "lifetimeSeconds": 600, "keys": [{"id": "test", "secret": "\(secret)"}]},
             "bundles": {"maxRanges": 8}, "app": {"bundleId": "com.example.depot.test"},
             "appStore": {"trustDevelopmentRoot": true},
             "admin": {"tokenSHA256": ["db09d473d4b6461b91bfa47e4fed3ef55e0234df4132ca7a827b0a69e8927cac"]},
             "irregularActivity": {"maxAccountTokens": 2, "maxClientAddresses": 10, "slowDownSeconds": 3600, "restoreWindowSeconds": 86400}, "server": {"trustedProxies": ["127.0.0.1/32", "::1"], "idleTimeoutSeconds": \(idleTimeoutSeconds), "requestTimeoutSeconds": \(requestTimeoutSeconds), "shutdownGraceSeconds": 5\(serverSettings.isEmpty ? "" : ", " + serverSettings)}\(settings.isEmpty ? "" : ", " + settings)}
            """)
        try scratch.write(
            "Config/products.json",
            """
            {"products": [
              {"id": "com.example.level1", "type": "nonConsumable", "title": "Level 1"},
              {"id": "com.example.monthly", "type": "autoRenewable", "title": "Monthly"},
              {"id": "com.example.coins", "type": "consumable", "title": "Coins"},
              {"id": "com.example.premium", "type": "nonConsumable", "title": "Premium"},
              {"id": "com.example.season", "type": "nonRenewing", "title": "Season pass", "periodDays": 30}
            ]}
            """)
    }

    /// The catalog entry of a content.
    func version(_ contentId: String) throws -> ContentVersion {
        try #require(application.catalog.versions.first { $0.contentId == contentId })
    }

    /// A grant for a bundle, valid for `ttl` seconds.
    func grant(_ digest: BundleDigest, ttl: Int64 = 600) -> String {
        application.grants.issue(digest: digest, expiresAt: DepotApplication.systemClock() + ttl)
    }

    /// A grant for the bundle whose digest `hex` spells (a test's own digest text, always well formed).
    func grant(_ hex: String, ttl: Int64 = 600) -> String {
        grant(BundleDigest(hex: hex)!, ttl: ttl)
    }

    /// The bytes of a stored bundle.
    func bundleBytes(_ digest: String) throws -> [UInt8] {
        let bundle = try #require(BundleDigest(hex: digest))
        let path = try #require(application.index.bundle(digest: bundle)?.path)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
