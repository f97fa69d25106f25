import DepotTelemetry
import DepotSettings
import DepotAPI
import DepotArchives
import DepotAppStore
import DepotBundles
import DepotCore
import DepotGooglePlay
import DepotHTTP
import DepotLedger
import DepotObjectStore
import DepotOrigin
import DepotServices
import DepotTrust
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// A Depot server ready to run: configuration loaded, content imported into the ledger's catalog, bundles
/// built, the catalog loaded from the ledger.
package struct DepotApplication: Sendable {
    /// The configuration in force.
    package let configuration: DepotConfiguration
    /// The catalog served now (it changes when the ledger's catalog does).
    package var catalog: Catalog { catalogs.current }
    /// The catalog being served, swapped whole on change.
    package let catalogs: CatalogHolder
    /// Served bundle files by digest.
    package let index: BundleIndex
    /// Grant signing and checking.
    package let grants: GrantAuthority
    /// The logger.
    package let logger: Logger
    /// Packs refused at import, with the reason for each.
    package let refusedPacks: [String]
    /// The ledger engine itself; the server's parts use it through `timedLedger`.
    package let ledger: any Ledger
    /// This server's metrics, rendered by `GET /metrics`.
    package let metrics: DepotMetrics
    /// Transactions whose grants are refused.
    package let revocations: RevocationList
    /// The App Store signed-data verifier.
    package let verifier: AppStoreVerifier
    /// The StoreKit 1 app receipt verifier; nil when no receipt root is configured.
    package var receiptVerifier: AppReceiptVerifier? = nil
    /// Loads the ledger's catalog into `catalogs` and `index` when it changed.
    package let refresher: CatalogRefresher
    /// Bundles pack directories and stages them as versions.
    package let stager: VersionStager
    /// Builds delta bundles towards newly published versions, in the background.
    package let deltas: DeltaBuilder
    /// The bundle files on this instance's disk (a cache of the object store's, when one is configured).
    package let bundleStore: LocalBundleStore
    /// Where uploads' bytes live when instances share no directory (the object store); nil: the uploads directory.
    package let uploadParts: ObjectStoreUploadParts?
    /// Bundle answers and bytes sent to edges filling their caches with the shared secret.
    package let edgeFills = EdgeFillCounter()
    /// Open connections against `server.maxConnections` and `server.maxConnectionsPerAddress`, and the refusals.
    package let connections: ConnectionGate
    /// Purges waiting for the purge hook (`edge.purge`); takes nothing when no hook is configured.
    package let purges: PurgeQueue
    /// Where upload bytes live (`<dataDirectory>/uploads`).
    let uploadStore: UploadStore
    /// Turns uploads into staged versions in the background.
    package let versionJobs: VersionJobRunner
    /// The App Store Server API client, when `appStoreServerAPI` is configured.
    package var appStoreClient: AppStoreServerAPIClient? = nil
    /// The Google Play Developer API client, when `googlePlay.developerAPI` is configured.
    package var googlePlayClient: GooglePlayDeveloperAPIClient? = nil
    /// The same API for the calls a request waits on, each bounded by `requestPathTimeoutSeconds`.
    package var googlePlayRequestClient: GooglePlayDeveloperAPIClient? = nil

    /// The ledger as the server's parts use it: every call timed into `metrics`.
    var timedLedger: any Ledger { MeasuredLedger(base: ledger, metrics: metrics) }

    /// Seconds since 1970, now.
    package static let systemClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// Loads everything the server needs before it listens: opens the ledger (unless `ledger` gives one already
    /// open), imports the configured products and the content directory into its catalog, builds the missing
    /// deltas, and loads the catalog. Uploaded archives are unpacked by `unpacker` (`depot serve` names its own
    /// binary: a child process).
    package static func prepare(
        _ configuration: DepotConfiguration, logger: Logger, unpacker: ArchiveUnpacker = .inProcess,
        ledger given: (any Ledger)? = nil
    ) async throws -> DepotApplication {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)

        let metrics = DepotMetrics()
        let replica = try configuration.objectStore.map {
            ObjectStoreBundleReplica(client: try ObjectStoreClient(settings: $0), recorder: metrics)
        }
        let store = try LocalBundleStore(
            root: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"), replica: replica,
            cacheBytes: configuration.localCacheBytes)
        if let settings = configuration.objectStore {
            logger.info(
                "bundles are shared through the object store",
                metadata: [
                    "endpoint": "\(settings.endpoint)", "bucket": "\(settings.bucket)", "prefix": "\(settings.prefix)",
                    "localCacheBytes": "\(configuration.localCacheBytes.map(String.init) ?? "unbounded")",
                ])
        }
        let uploadParts = try configuration.objectStore.map {
            ObjectStoreUploadParts(client: try ObjectStoreClient(settings: $0), recorder: metrics)
        }
        let shelf = try PackShelf(root: (configuration.dataDirectory as NSString).appendingPathComponent("packs"))
        let verifier = try TrustSetup.verifier(configuration, logger: logger)
        let engine: any Ledger
        if let given {
            engine = given
        } else {
            engine = try await LedgerOpener.open(
                configuration.ledgerURL, busyTimeoutSeconds: configuration.ledgerBusyTimeoutSeconds,
                waitSeconds: configuration.ledgerWaitSeconds, logger: logger)
        }
        let ledger = MeasuredLedger(base: engine, metrics: metrics)
        let imported = try await CatalogImporter.run(
            products: configuration.products, contentDirectory: configuration.contentDirectory,
            packLimits: configuration.bundles.packLimits, compressionLevel: configuration.bundles.compressionLevel,
            ledger: ledger, store: store, shelf: shelf, now: systemClock(), logger: logger, buildTimer: metrics)
        let catalogs = try CatalogHolder(catalog: .empty, revision: -1, now: systemClock())
        let index = BundleIndex(originFields: OriginHeaders(settings: configuration.edge).bundleFields(for:))
        let refresher = CatalogRefresher(
            ledger: ledger, holder: catalogs, index: index, store: store, productOrder: configuration.products.map(\.id),
            clock: systemClock, logger: logger)
        let deltas = DeltaBuilder(
            ledger: ledger, store: store, shelf: shelf, limits: configuration.bundles.packLimits,
            compressionLevel: configuration.bundles.compressionLevel, baseCount: configuration.catalog.deltaBaseCount,
            logger: logger, metrics: metrics, onRecorded: { _ = try? await refresher.refresh() })
        // Deltas between the imported versions are built before the server listens, as they always were; one that
        // cannot be (its bundle cannot be sent to an unreachable object store) is left to the background builds, and
        // the full bundle is offered meanwhile.
        for version in imported.imported {
            // With a bucket that did not take the imported bundles, a delta's send would wait out the client's retries
            // too: the deltas are left to the background.
            guard store.unsentCount == 0 else {
                deltas.enqueue(version)
                continue
            }
            do {
                try await deltas.build(towards: version, olderOnly: true)
            } catch {
                logger.warning(
                    "a delta was not built at start; it is tried once more in the background (else at the next start or publish)",
                    metadata: ["content": "\(version.contentId)", "version": "\(version.version)", "error": "\(error)"])
                deltas.enqueue(version)
            }
        }
        refresher.recordOnceSent(imported.deferred)
        try await refresher.reload()
        // Deltas towards the current versions that a publish asked for but a stop (or a kill) cut short are
        // built again in the background: what is recorded already is skipped.
        let now = systemClock()
        for product in catalogs.current.products {
            for version in catalogs.current.currentContents(of: product.id, at: now) { deltas.enqueue(version) }
        }
        let revocations = RevocationList(
            try await RevocationRefresh.refusedTransactionIds(
                ledger: ledger, catalog: catalogs.current, grantLifetime: configuration.grants.lifetimeSeconds,
                now: systemClock()))
        let uploadStore: UploadStore
        do {
            uploadStore = try UploadStore(dataDirectory: configuration.dataDirectory)
        } catch {
            throw ConfigurationError("cannot prepare the uploads directory under \(configuration.dataDirectory): \(error)")
        }
        let stager = VersionStager(
            ledger: ledger, store: store, shelf: shelf, limits: configuration.bundles.packLimits,
            compressionLevel: configuration.bundles.compressionLevel, clock: systemClock, metrics: metrics)
        let packLimits = configuration.bundles.packLimits
        let versionJobs = VersionJobRunner(
            ledger: ledger, stager: stager,
            uploads: { [files = CompleteUploadFiles(store: uploadStore, ledger: ledger, parts: uploadParts)] id in
                try await files.path(id)
            },
            scratchRoot: (configuration.dataDirectory as NSString).appendingPathComponent("scratch"),
            archiveLimits: ArchiveLimits(
                maxEntries: packLimits.maxFileCount * 2 + 16, maxEntryBytes: packLimits.maxFileSize,
                maxTotalBytes: packLimits.maxTotalSize),
            unpacker: unpacker, staleSeconds: configuration.catalog.versionJobStaleSeconds, clock: systemClock, logger: logger,
            floor: storageFloor(configuration),
            onStaged: { _ = try? await refresher.refresh() })
        var application = DepotApplication(
            configuration: configuration, catalogs: catalogs, index: index, grants: try grantAuthority(configuration.grants),
            logger: logger, refusedPacks: imported.refused.map { "\($0.directory): \($0.reason)" }, ledger: engine,
            metrics: metrics,
            revocations: revocations, verifier: verifier, refresher: refresher, stager: stager, deltas: deltas,
            bundleStore: store, uploadParts: uploadParts,
            connections: ConnectionGate(
                maxConnections: configuration.http.maxConnections,
                maxPerAddress: configuration.http.maxConnectionsPerAddress,
                exempt: { [proxies = configuration.http.trustedProxies] in proxies.isTrusted($0) }),
            purges: configuration.edge.purgeHook.map { PurgeQueue(capacity: $0.queueCapacity, logger: logger) }
                ?? .disabled(logger: logger),
            uploadStore: uploadStore, versionJobs: versionJobs)
        application.receiptVerifier = try TrustSetup.receiptVerifier(configuration)
        if let settings = configuration.appStoreServerAPI {
            application.appStoreClient = try appStoreClient(settings)
            if settings.outbox.leaseSeconds <= settings.timeoutSeconds {
                // A call still under way when its lease ends may be sent again by another instance (harmless for
                // Finish Transaction, wasteful): the lease should outlast the call's timeout.
                logger.warning(
                    "appStoreServerAPI.outbox.leaseSeconds is not longer than timeoutSeconds: a slow call may be sent twice",
                    metadata: ["leaseSeconds": "\(settings.outbox.leaseSeconds)", "timeoutSeconds": "\(settings.timeoutSeconds)"])
            }
            logger.info(
                "App Store Server API on: delivered transactions are finished at the App Store by Depot",
                metadata: ["environments": "\(settings.baseURLs.keys.sorted().joined(separator: ", "))"])
        }
        if let googlePlay = configuration.googlePlay, let settings = googlePlay.developerAPI {
            (application.googlePlayClient, application.googlePlayRequestClient) = try settings.clients(
                packageName: googlePlay.packageName)
            logger.info(
                "Google Play Developer API on: delivered purchases are acknowledged (or consumed) at Google Play by Depot",
                metadata: ["baseURL": "\(settings.baseURL)"])
        }
        return application
    }

    /// The poll of Google's voided purchases, when `googlePlay.developerAPI` is configured: run on a timer, and
    /// at once when a notification says a purchase was voided.
    private func voidedPurchasePoll(service: DeliveryService) -> VoidedPurchasePoll? {
        guard let settings = configuration.googlePlay?.developerAPI, let googlePlayClient else { return nil }
        return VoidedPurchasePoll(
            ledger: timedLedger, client: googlePlayClient, settings: settings.voidedPurchases, clock: Self.systemClock,
            logger: logger, onRevoked: { id in await service.purchaseRevoked(id) },
            onUnacknowledgedVoid: { [metrics] in metrics.googlePlayUnacknowledgedVoid() })
    }

    /// The handler of Google Play notifications, when `googlePlay.notifications` is configured.
    private func googlePlayNotificationHandler(service: DeliveryService, voided: VoidedPurchasePoll?) -> GooglePlayNotificationHandler? {
        guard let googlePlay = configuration.googlePlay,
            !googlePlay.notificationTokenDigests.isEmpty || googlePlay.notificationOIDC != nil, let voided, let googlePlayClient
        else { return nil }
        return GooglePlayNotificationHandler(
            packageName: googlePlay.packageName, ledger: timedLedger, client: googlePlayClient, voided: voided,
            clock: Self.systemClock, logger: logger, onRevoked: { id in await service.purchaseRevoked(id) })
    }

    /// The App Store Server API client for the configured key. It makes one attempt per call: the outbox
    /// retries durably, with its own backoff. `timeoutSeconds` shortens the configured timeout.
    package static func appStoreClient(
        _ settings: AppStoreServerAPISettings, timeoutSeconds: Int64? = nil
    ) throws(AppStoreAPIError) -> AppStoreServerAPIClient {
        let signer = try AppStoreAPITokenSigner(
            keyId: settings.keyId, issuerId: settings.issuerId, bundleId: settings.bundleId,
            privateKeyPEM: settings.privateKeyPEM)
        return AppStoreServerAPIClient(
            signer: signer, baseURLs: AppStoreServerAPIClient.BaseURLs(settings.baseURLs),
            timeoutSeconds: min(settings.timeoutSeconds, timeoutSeconds ?? settings.timeoutSeconds),
            retry: AppStoreAPIRetryPolicy(maxAttempts: 1))
    }

    /// Closes the ledger after the server stopped.
    package func close() async {
        try? await ledger.close()
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
        let (router, service, voidedPurchases) = makeRouter(uploadClock: uploadClock)
        let clock = Self.systemClock
        let ledger = timedLedger
        let recorder = ServedBytesRecorder(ledger: ledger, logger: logger, metrics: metrics)
        let tls = configuration.tls?.context
        let origin = BundleOrigin(
            index: index, grants: grants, revocations: revocations, edgeSecrets: EdgeSecrets(settings: configuration.edge),
            rangeLimits: RangeLimits(maxRanges: configuration.bundles.maxRanges),
            grantCheckCacheSeconds: configuration.edge.grantCheckCacheSeconds,
            purgeTagHeader: configuration.edge.purgeTagHeader, transactionTag: PurgeTags.transaction,
            recorder: recorder, edgeFills: self.edgeFills,
            timeouts: .init(
                idle: .seconds(configuration.http.idleTimeoutSeconds),
                request: .seconds(configuration.http.requestTimeoutSeconds),
                shutdownGrace: .seconds(configuration.http.shutdownGraceSeconds)),
            headLimits: configuration.http.requestHeadLimits, metrics: metrics.bytePath, tls: tls != nil,
            fileSource: bundleStore.sharesBundles ? bundleStore : nil, clock: clock)
        let connections = self.connections
        let server = HTTPServerBuilder { httpResponder in
            TLSChannel(
                base: ConnectionLimitedChannel(
                    base: BundleServingChannel(
                        http1: HTTP1Channel(responder: httpResponder, configuration: .init(idleTimeout: nil)),
                        origin: origin),
                    gate: connections, clock: clock),
                context: tls)
        }
        let logger = self.logger
        var services: [any Service] = [
            CatalogWatcher(
                refresher: refresher, interval: .milliseconds(configuration.catalog.pollIntervalMilliseconds),
                logger: logger),
            deltas,
            versionJobs,
            RevocationRefresh(
                ledger: ledger, revocations: revocations, catalogs: catalogs,
                grantLifetime: configuration.grants.lifetimeSeconds, clock: Self.systemClock, interval: .seconds(5),
                logger: logger,
                onNewlyRevoked: { ids in
                    for id in ids { await service.purchaseRevoked(id) }
                }),
            recorder,
            UploadReaper(
                ledger: ledger, store: uploadStore, parts: uploadParts, clock: uploadClock,
                interval: .seconds(configuration.uploads.reaperIntervalSeconds), logger: logger),
            HeapTrimmer(logger: logger),
            StorageCollector(
                ledger: ledger, bundlesRoot: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"),
                packsRoot: (configuration.dataDirectory as NSString).appendingPathComponent("packs"),
                graceSeconds: max(configuration.catalog.unreferencedGraceSeconds, configuration.grants.lifetimeSeconds),
                intervalSeconds: configuration.catalog.collectIntervalSeconds, clock: Self.systemClock, logger: logger,
                bundleRemoved: { [bundleStore] digest in bundleStore.forgetFile(digest) }),
        ]
        if let settings = configuration.objectStore, let client = try? ObjectStoreClient(settings: settings) {
            services.append(
                BucketCollector(
                    ledger: ledger, client: client, owner: StoreOutboxWorker.makeOwner(),
                    graceSeconds: max(configuration.catalog.unreferencedGraceSeconds, configuration.grants.lifetimeSeconds),
                    intervalSeconds: configuration.catalog.collectIntervalSeconds, clock: Self.systemClock, logger: logger,
                    recorder: metrics))
        }
        if let hook = configuration.edge.purgeHook {
            services.append(PurgeWorker(queue: purges, settings: hook, sender: hook.sender, logger: logger))
        }
        // One outbox worker sends every store's calls; the App Store's outbox settings rule when both are given.
        if let outbox = configuration.appStoreServerAPI?.outbox ?? configuration.googlePlay?.developerAPI?.outbox,
            appStoreClient != nil || googlePlayClient != nil
        {
            services.append(
                StoreOutboxWorker(
                    ledger: ledger, client: appStoreClient, googlePlay: googlePlayClient.map(GooglePlayPurchaseCompletion.init),
                    settings: outbox, owner: StoreOutboxWorker.makeOwner(), clock: Self.systemClock,
                    random: { Double.random(in: 0..<1) }, logger: logger,
                    consumptionInformation: { id async throws(DepotError) in try await service.consumptionInformation(transactionId: id) },
                    refundReview: {
                        [sample = configuration.googlePlay?.developerAPI?.sampleContentProvided ?? false] id async throws(DepotError) in
                        try await service.refundReview(transactionId: id, sampleContentProvided: sample)
                    }))
        }
        if let voidedPurchases, voidedPurchases.settings.intervalSeconds > 0 {
            services.append(voidedPurchases)
        }
        if let settings = configuration.appStoreServerAPI, let appStoreClient {
            // Only environments with an App Store server keep a notification history.
            let environments = ["Production", "Sandbox"].filter {
                settings.sends(environment: $0) && configuration.appStore.environments.contains($0)
            }
            if settings.notificationHistory.intervalSeconds > 0, !environments.isEmpty {
                services.append(
                    NotificationBackfill(
                        ledger: ledger, client: appStoreClient.retrying(AppStoreAPIRetryPolicy()), notifications: service.notifications,
                        environments: environments, settings: settings.notificationHistory, clock: Self.systemClock,
                        logger: logger))
            }
        }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let scheme = tls == nil ? "http" : "https"
                logger.info(
                    "listening", metadata: ["address": "\(scheme)://\(channel.localAddress?.ipAddress ?? "?"):\(port)"])
                await onRunning(port)
            },
            logger: logger
        )
    }

    /// Every routed request's answer (all but the byte path's): the router with its middlewares, the delivery
    /// service behind it, and the voided-purchase poll its Google Play route feeds (when configured).
    func makeRouter(
        uploadClock: @escaping @Sendable () -> Int64 = DepotApplication.systemClock
    ) -> (Router<DepotRequestContext>, DeliveryService, VoidedPurchasePoll?) {
        let clock = Self.systemClock
        let ledger = timedLedger
        let router = Router(context: DepotRequestContext.self)
        // Outermost first: the request id names everything after it, metrics see the status errors are answered with.
        router.middlewares.add(RequestIdMiddleware())
        router.middlewares.add(RequestMetricsMiddleware(metrics: metrics))
        router.middlewares.add(ErrorBodyMiddleware())
        ProductRoutes(
            catalogs: catalogs, cacheControl: configuration.http.productListCacheControl,
            originFields: OriginHeaders(settings: configuration.edge).productListFields, clock: clock
        )
        .register(on: router)
        ProductUpdateRoute(catalogs: catalogs, cacheControl: configuration.http.productListCacheControl, clock: clock)
            .register(on: router)
        let service = DeliveryService(
            verifier: verifier, googlePlay: configuration.googlePlay?.verifier, receipts: receiptVerifier,
            receiptLookup: receiptLookup(),
            context: {
                var context = DeliveryContext(
                    ledger: ledger, catalogs: catalogs, grants: grants, grantLifetime: configuration.grants.lifetimeSeconds,
                    revocations: revocations, purges: purges, clock: clock, logger: logger)
                context.proratedRefunds = configuration.proratedRefunds
                return context
            }(),
            irregular: configuration.irregularActivity, appStoreServerAPI: configuration.appStoreServerAPI,
            googlePlaySubscriptions: googlePlayRequestClient.map { GooglePlaySubscriptionPeriod(client: $0, logger: self.logger) },
            metrics: metrics, accountAssertions: configuration.accountAssertion?.verifier)
        TransactionRoutes(service: service, trustedProxies: configuration.http.trustedProxies, metrics: metrics)
            .register(on: router)
        let voidedPurchases = voidedPurchasePoll(service: service)
        GooglePlayNotificationRoute(
            handler: googlePlayNotificationHandler(service: service, voided: voidedPurchases),
            tokens: BearerTokenDigests(hexDigests: configuration.googlePlay?.notificationTokenDigests ?? []),
            oidc: configuration.googlePlay?.notificationOIDC.map {
                GooglePushTokenVerifier(
                    audience: $0.audience, serviceAccountEmail: $0.serviceAccountEmail, certificatesURL: $0.certificatesURL)
            }
        )
        .register(on: router)
        let store = bundleStore
        let bundleCacheCounts: (@Sendable () -> BundleCacheCounts)? = store.sharesBundles ? { @Sendable in store.cacheCounts } : nil
        let replicaBacklog: (@Sendable () -> ReplicaBacklog)? =
            store.sharesBundles
            ? { @Sendable [refresher] in ReplicaBacklog(unfetchable: refresher.unfetchableCount, unsent: refresher.unsentCount) } : nil
        let readiness = readinessRoute(replicaBacklog: replicaBacklog)
        MetricsRoute(
            metrics: metrics,
            tokens: BearerTokenDigests(hexDigests: configuration.adminTokenDigests + configuration.metricsTokenDigests),
            ledger: ledger, purges: purges.counters, edgeFills: self.edgeFills, connections: connections,
            bundleCache: bundleCacheCounts, replicaBacklog: replicaBacklog, logger: logger,
            floor: Self.storageFloor(configuration), readiness: { _ = await readiness.reasonNotReady() }
        ).register(on: router)
        AdminRoutes(service: service, tokenDigests: configuration.adminTokenDigests).register(on: router)
        let publisherAuth = PublisherAuthMiddleware(ledger: ledger)
        let publishing = PublishingService(
            ledger: ledger, runner: versionJobs, deltas: deltas, purges: purges,
            refreshCatalog: { [refresher, logger] in
                do { try await refresher.refresh() } catch {
                    logger.warning("catalog not refreshed", metadata: ["error": "\(error)"])
                }
            }, clock: clock, logger: logger)
        PublisherProductRoutes(publishing: publishing)
            .register(on: router.group("/v1/publisher").add(middleware: publisherAuth))
        PublisherVersionRoutes(ledger: ledger, publishing: publishing, clock: clock, uploadClock: uploadClock)
            .register(on: router.group("/v1/publisher").add(middleware: publisherAuth))
        let uploads = UploadService(
            ledger: ledger, store: uploadStore, settings: configuration.uploads, parts: uploadParts, clock: uploadClock,
            logger: logger)
        let uploadGroup = router.group(RouterPath(UploadRoutes.path))
            .add(middleware: TusMiddleware())
            .add(middleware: publisherAuth)
            .add(middleware: UploadStorageFloorMiddleware(floor: Self.storageFloor(configuration)))
            .add(middleware: UploadKeyAcceptedMiddleware())
        UploadRoutes(
            service: uploads,
            origin: RequestOrigin(tls: configuration.tls != nil, trustedProxies: configuration.http.trustedProxies),
            publisher: { _, context in context.publisher?.name ?? "unknown" }
        ).register(on: uploadGroup)
        ConsoleRoutes(settings: configuration.console).register(on: router)
        router.get("/healthz") { _, _ in "ok\n" }
        readiness.register(on: router)
        return (router, service, voidedPurchases)
    }

    /// `/readyz`'s decision, which records `depot_ready` and `depot_ledger_available` (a scrape decides too).
    func readinessRoute(replicaBacklog: (@Sendable () -> ReplicaBacklog)?) -> ReadinessRoute {
        let ledger = timedLedger
        var readiness = ReadinessRoute(
            readLedger: { [ledger] () async throws(LedgerError) in _ = try await ledger.catalogRevision() },
            storeDirectory: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"))
        if let settings = configuration.objectStore, let probe = ObjectStoreReadiness(settings: settings) {
            readiness.objectStoreProblem = { await probe.problem() }
        }
        readiness.replicaBacklog = replicaBacklog
        readiness.metrics = metrics
        return readiness
    }
}
