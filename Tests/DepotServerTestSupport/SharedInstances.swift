import DepotSettings
import Crypto
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// Several Depot instances in this process with one configuration, one data directory (bundle store,
/// development root) and one ledger, each listening on its own free port: what a deployment of several
/// instances behind a load balancer looks like, minus the balancer.
///
/// The instances are prepared one after the other: `LocalBundleStore` clears `tmp/` when it opens (it
/// assumes one process owns a root at a time), so an instance starting while another is still building
/// could remove the other's half-written bundle. Once the first one built the bundles, the next ones find
/// them in the store's index and build nothing.
struct SharedInstances {
    /// The running instances, in start order.
    let servers: [LiveServer]
    /// The shared directory: `Config/`, `content/`, `data/`.
    let scratch: ScratchDirectory
    /// The ledger every instance uses.
    let ledgerURL: String

    /// The bearer token that opens `/v1/admin/...` on every instance.
    static let adminToken = "depot-test-admin-token"

    /// `Authorization` header line for the admin routes.
    static var adminAuthorization: String { "Authorization: Bearer \(adminToken)" }

    /// Starts `count` instances over `packs` on `engine` (PostgreSQL: a fresh database; SQLite: one file in
    /// the shared data directory, or beside the instances' own ones), runs `body`, then shuts every instance down gracefully and removes the files.
    /// A PostgreSQL test without a server is skipped (or fails in CI), see `PostgresTestDatabase`.
    static func with(
        _ name: String = #function, engine: LedgerEngine, count: Int = 2, packs: [LiveServer.PackSpec] = smallPacks,
        settings: String = "", dataDirectoryPerInstance: Bool = false, ledgerWaitSeconds: Int? = nil,
        ledgerURLThrough: (String) throws -> String = { $0 }, body: (SharedInstances) async throws -> Void
    ) async throws {
        switch engine {
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                try await run(
                    name, ledgerURL: try ledgerURLThrough(database.url), count: count, packs: packs, settings: settings,
                    dataDirectoryPerInstance: dataDirectoryPerInstance, ledgerWaitSeconds: ledgerWaitSeconds, body: body)
            }
        case .sqlite:
            try await run(
                name, ledgerURL: nil, count: count, packs: packs, settings: settings,
                dataDirectoryPerInstance: dataDirectoryPerInstance, ledgerWaitSeconds: ledgerWaitSeconds, body: body)
        }
    }

    /// The data directory of instance `index`: one for all, or `data<index>` each (instances that share bundles
    /// through an object store, and no directory).
    static func dataDirectory(in scratch: ScratchDirectory, index: Int, perInstance: Bool) -> String {
        scratch.path + (perInstance ? "/data\(index)" : "/data")
    }

    private static func run(
        _ name: String, ledgerURL: String?, count: Int, packs: [LiveServer.PackSpec], settings: String,
        dataDirectoryPerInstance: Bool, ledgerWaitSeconds: Int?, body: (SharedInstances) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        try writeConfiguration(in: scratch, settings: settings)
        try write(packs, in: scratch)
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        // Instances with data directories of their own share one SQLite file beside them.
        let ledgerURL = ledgerURL ?? (dataDirectoryPerInstance ? "sqlite:" + scratch.path + "/ledger.sqlite" : nil)

        var servers: [LiveServer] = []
        var groups: [(group: ServiceGroup, task: Task<Void, any Error>, ledger: any Ledger)] = []
        func stopAll() async throws {
            for entry in groups { await entry.group.triggerGracefulShutdown() }
            var failure: (any Error)?
            for entry in groups {
                do {
                    try await ListeningGroup.end(
                        of: entry.task, within: ListeningGroup.shutdownBound + ListeningGroup.afterCancellationBound)
                } catch { failure = failure ?? error }
                if let ledger = entry.ledger as? PostgresLedger { await ledger.shutdown() }
            }
            groups.removeAll()
            if let failure { throw failure }
        }
        do {
            for index in 0..<count {
                var configuration = try ConfigurationLoader.load(
                    overrides: ConfigurationOverrides(
                        configPath: scratch.path + "/Config", port: 0,
                        dataDirectory: dataDirectory(in: scratch, index: index, perInstance: dataDirectoryPerInstance),
                        contentDirectory: scratch.path + "/content", databaseURL: ledgerURL),
                    environment: [:])
                // A loaded test machine can hold a PostgreSQL statement past serve's 5 s; these tests do not measure it
                // (unless they name their own bound).
                configuration.ledgerWaitSeconds = ledgerWaitSeconds.map(Int64.init) ?? max(configuration.ledgerWaitSeconds, 60)
                let application = try await DepotApplication.prepare(configuration, logger: logger)
                let running = try await ListeningGroup.start(logger: logger) { ready in application.makeApplication(onRunning: ready) }
                groups.append((running.group, running.task, application.ledger))
                let group = running.group
                let port = running.port
                servers.append(
                    LiveServer(port: port, application: application, scratch: scratch, shutdown: { await group.triggerGracefulShutdown() }))
            }
            let shared = SharedInstances(
                servers: servers, scratch: scratch, ledgerURL: servers[0].application.configuration.ledgerURL)
            try await body(shared)
        } catch {
            try? await stopAll()
            throw error
        }
        try await stopAll()
    }

    /// The grant key, development trust, an admin token and two products (as `LiveServer` has them);
    /// `settings` adds members to `depot.json`'s top-level object. Instances sharing a SQLite file wait up to 120 s
    /// for each other's write lock, and a PostgreSQL ledger's operations up to 60 s: on a loaded machine a holder is
    /// descheduled past the defaults (10 s, 5 s), which these tests do not measure.
    static func writeConfiguration(in scratch: ScratchDirectory, settings: String = "") throws {
        let secret = Data(LiveServer.secret).base64EncodedString()
        try scratch.write(
            "Config/depot.json",
            """
            {"grants": {"activeKeyId": "test", "lifetimeSeconds": 600, "keys": [{"id": "test", "secret": "\(secret)"}]},
             "bundles": {"maxRanges": 8}, "app": {"bundleId": "com.example.depot.test"},
             "appStore": {"trustDevelopmentRoot": true}, "ledger": {"sqliteBusyTimeoutSeconds": 120, "waitSeconds": 60},
             "admin": {"tokenSHA256": ["\(hexSHA256(adminToken))"]},
             "server": {"idleTimeoutSeconds": 120, "shutdownGraceSeconds": 5}\(settings.isEmpty ? "" : ", " + settings)}
            """)
        try scratch.write(
            "Config/products.json",
            """
            {"products": [
              {"id": "com.example.level1", "type": "nonConsumable", "title": "Level 1"},
              {"id": "com.example.coins", "type": "consumable", "title": "Coins"},
              {"id": "com.example.monthly", "type": "autoRenewable", "title": "Monthly"}
            ]}
            """)
    }

    /// Writes packs under `content/`, as `LiveServer` does.
    static func write(_ packs: [LiveServer.PackSpec], in scratch: ScratchDirectory) throws {
        for pack in packs {
            var manifest = "{\"productId\": \"\(pack.productId)\", \"version\": \"\(pack.version)\", "
            if let contentId = pack.contentId { manifest += "\"contentId\": \"\(contentId)\", " }
            manifest += "\"publishedAt\": \"\(pack.publishedAt)\"}"
            try scratch.write("content/\(pack.directory)/pack.json", manifest)
            for (path, bytes) in pack.files { try scratch.write("content/\(pack.directory)/Contents/\(path)", bytes) }
        }
    }

    /// A non-consumable with a text file and 512 KiB of random bytes, and a consumable: quick to bundle.
    static let smallPacks: [LiveServer.PackSpec] = {
        var random = SeededBytes(seed: 11)
        return [
            LiveServer.PackSpec(
                directory: "game/level1", productId: "com.example.level1",
                files: [
                    "notes.txt": Array(String(repeating: "Shared ledger, shared store. ", count: 2000).utf8),
                    "media/tiles.bin": random.bytes(512 << 10),
                ]),
            LiveServer.PackSpec(
                directory: "game/coins", productId: "com.example.coins", files: ["coins.json": Array("{\"coins\": 500}".utf8)]),
        ]
    }()

    /// Lowercase hex SHA-256.
    static func hexSHA256(_ text: String) -> String { hexSHA256(Array(text.utf8)) }

    /// Lowercase hex SHA-256.
    static func hexSHA256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
