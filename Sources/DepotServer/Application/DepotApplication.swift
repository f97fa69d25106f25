import DepotBundles
import DepotCore
import DepotHTTP
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
    private let listing: ProductListing

    /// Seconds since 1970, now.
    package static let systemClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// Loads everything the server needs before it listens.
    package static func prepare(_ configuration: DepotConfiguration, logger: Logger) async throws -> DepotApplication {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try LocalBundleStore(
            root: (configuration.dataDirectory as NSString).appendingPathComponent("bundles"))
        let loaded = try await CatalogLoader.load(configuration, store: store, logger: logger)
        return try DepotApplication(configuration: configuration, loaded: loaded, logger: logger)
    }

    private init(configuration: DepotConfiguration, loaded: CatalogLoader.Result, logger: Logger) throws {
        self.configuration = configuration
        self.catalog = loaded.catalog
        self.index = BundleIndex(loaded.bundles)
        self.grants = try Self.grantAuthority(configuration.grants)
        self.logger = logger
        self.listing = try ProductListing(catalog: loaded.catalog)
        self.refusedPacks = loaded.refused.map { "\($0.directory): \($0.reason)" }
    }

    /// The grant authority for a configuration's keys.
    package static func grantAuthority(_ settings: GrantSettings) throws -> GrantAuthority {
        let keys = try settings.keys.map { key throws(GrantError) in try GrantKey(id: key.id, secret: key.secret) }
        return try GrantAuthority(keys: keys, activeKeyId: settings.activeKeyId)
    }

    /// The Hummingbird application: routes for lists and health, with the bundle handler in its pipeline.
    /// `onRunning` receives the bound port once the server listens.
    package func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let clock = Self.systemClock
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(ErrorBodyMiddleware())
        ProductRoutes(listing: listing, cacheControl: configuration.http.productListCacheControl, clock: clock)
            .register(on: router)
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/readyz") { _, _ in "ready\n" }

        let responder = BundleResponder(
            index: index, grants: grants, rangeLimits: RangeLimits(maxRanges: configuration.bundles.maxRanges))
        let registry = FileCacheRegistry()
        let idle = TimeAmount.seconds(configuration.http.idleTimeoutSeconds)
        let grace = TimeAmount.seconds(configuration.http.shutdownGraceSeconds)
        let server = HTTPServerBuilder { httpResponder in
            BundleServingChannel(
                http1: HTTP1Channel(responder: httpResponder, configuration: .init(idleTimeout: nil)),
                makeHandler: { channel in
                    BundleChannelHandler(
                        responder: responder, files: registry.cache(for: channel.eventLoop), idleTimeout: idle,
                        shutdownGrace: grace, clock: clock)
                })
        }
        let logger = self.logger
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["address": "http://\(channel.localAddress?.ipAddress ?? "?"):\(port)"])
                await onRunning(port)
            },
            logger: logger
        )
    }
}
