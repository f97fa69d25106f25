import DepotBundles
import DepotCore
import DepotHTTP
import DepotLedger
import DepotTrust
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A Depot server ready to run: configuration loaded, content imported, bundles built.
package struct DepotApplication: Sendable {
    /// The configuration in force.
    package let configuration: DepotConfiguration
    /// What is served.
    package let catalog: Catalog
    /// Served bundle files by digest.
    package let index: BundleIndex
    /// Grant signing and checking.
    package let grants: GrantAuthority
    /// The logger.
    package let logger: Logger
    /// Packs refused at import, with the reason for each.
    package let refusedPacks: [String]
    /// The ledger.
    package let ledger: any Ledger
    /// Transactions whose grants are refused.
    package let revocations: RevocationList
    /// The App Store signed-data verifier.
    package let verifier: AppStoreVerifier
    /// Where upload bytes live (`<dataDirectory>/uploads`).
    let uploadStore: UploadStore
    private let listing: ScheduledListing

    /// Seconds since 1970, now.
    package static let systemClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// Loads everything the server needs before it listens.
    package static func prepare(_ configuration: DepotConfiguration, logger: Logger) async throws -> DepotApplication {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try LocalBundleStore(
            root: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"))
        let loaded = try await CatalogLoader.load(configuration, store: store, logger: logger)
        let verifier = try TrustSetup.verifier(configuration, logger: logger)
        let ledger = try await LedgerOpener.open(configuration.ledgerURL, logger: logger)
        let revocations = RevocationList(
            try await RevocationRefresh.refusedTransactionIds(
                ledger: ledger, catalog: loaded.catalog, grantLifetime: configuration.grants.lifetimeSeconds,
                now: systemClock()))
        return try DepotApplication(
            configuration: configuration, loaded: loaded, ledger: ledger, verifier: verifier, revocations: revocations,
            logger: logger)
    }

    private init(
        configuration: DepotConfiguration, loaded: CatalogLoader.Result, ledger: any Ledger, verifier: AppStoreVerifier,
        revocations: RevocationList, logger: Logger
    ) throws {
        self.configuration = configuration
        self.ledger = ledger
        self.verifier = verifier
        self.revocations = revocations
        self.catalog = loaded.catalog
        self.index = BundleIndex(loaded.bundles)
        self.grants = try Self.grantAuthority(configuration.grants)
        self.logger = logger
        self.listing = try ScheduledListing(catalog: loaded.catalog, now: Self.systemClock())
        self.refusedPacks = loaded.refused.map { "\($0.directory): \($0.reason)" }
        do {
            self.uploadStore = try UploadStore(dataDirectory: configuration.dataDirectory)
        } catch {
            throw ConfigurationError("cannot prepare the uploads directory under \(configuration.dataDirectory): \(error)")
        }
    }

    /// Closes the ledger after the server stopped.
    package func close() async {
        if let postgres = ledger as? PostgresLedger {
            await postgres.shutdown()
        } else if let sqlite = ledger as? SQLiteLedger {
            try? sqlite.close()
        }
    }

    /// The grant authority for a configuration's keys.
    package static func grantAuthority(_ settings: GrantSettings) throws -> GrantAuthority {
        let keys = try settings.keys.map { key throws(GrantError) in try GrantKey(id: key.id, secret: key.secret) }
        return try GrantAuthority(keys: keys, activeKeyId: settings.activeKeyId)
    }

    /// The Hummingbird application: routes for lists and health, with the bundle handler in its pipeline.
    /// `onRunning` receives the bound port once the server listens; `uploadClock` is the time uploads
    /// expire by (the system clock unless a test moves time itself).
    package func makeApplication(
        uploadClock: @escaping @Sendable () -> Int64 = DepotApplication.systemClock,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let clock = Self.systemClock
        let router = Router(context: DepotRequestContext.self)
        router.middlewares.add(ErrorBodyMiddleware())
        ProductRoutes(listing: listing, cacheControl: configuration.http.productListCacheControl, clock: clock)
            .register(on: router)
        let service = DeliveryService(
            verifier: verifier, ledger: ledger, catalog: catalog, grants: grants,
            grantLifetime: configuration.grants.lifetimeSeconds, revocations: revocations,
            irregular: configuration.irregularActivity, clock: clock, logger: logger)
        TransactionRoutes(service: service).register(on: router)
        AdminRoutes(service: service, tokenDigests: configuration.adminTokenDigests).register(on: router)
        let uploads = UploadService(
            ledger: ledger, store: uploadStore, settings: configuration.uploads, clock: uploadClock, logger: logger)
        // Interim authentication: the operator token, until publisher keys exist.
        let uploadGroup = router.group(RouterPath(UploadRoutes.path))
            .add(middleware: TusMiddleware())
            .add(middleware: AdminAuthMiddleware(hexDigests: configuration.adminTokenDigests))
        UploadRoutes(service: uploads).register(on: uploadGroup)
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/readyz") { _, _ in "ready\n" }

        let responder = BundleResponder(
            index: index, grants: grants, revocations: revocations, rangeLimits: RangeLimits(maxRanges: configuration.bundles.maxRanges))
        let registry = FileCacheRegistry()
        let recorder = ServedBytesRecorder(ledger: ledger, logger: logger)
        let idle = TimeAmount.seconds(configuration.http.idleTimeoutSeconds)
        let grace = TimeAmount.seconds(configuration.http.shutdownGraceSeconds)
        let requestTimeout = TimeAmount.seconds(configuration.http.requestTimeoutSeconds)
        let server = HTTPServerBuilder { httpResponder in
            BundleServingChannel(
                http1: HTTP1Channel(responder: httpResponder, configuration: .init(idleTimeout: nil)),
                makeHandler: { channel in
                    BundleChannelHandler(
                        responder: responder, recorder: recorder, files: registry.cache(for: channel.eventLoop), idleTimeout: idle,
                        requestTimeout: requestTimeout, shutdownGrace: grace, clock: clock)
                })
        }
        let logger = self.logger
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [
                RevocationRefresh(
                    ledger: ledger, revocations: revocations, catalog: catalog,
                    grantLifetime: configuration.grants.lifetimeSeconds, clock: Self.systemClock, interval: .seconds(5),
                    logger: logger),
                recorder,
                UploadReaper(
                    ledger: ledger, store: uploadStore, clock: uploadClock,
                    interval: .seconds(configuration.uploads.reaperIntervalSeconds), logger: logger),
            ],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["address": "http://\(channel.localAddress?.ipAddress ?? "?"):\(port)"])
                await onRunning(port)
            },
            logger: logger
        )
    }
}
