import DepotSettings
import DepotTelemetry
import ArgumentParser
import DepotCore
import DepotLedger
import DepotServer
import DepotServices
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// `depot serve`: import content, build bundles, and answer HTTP until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (reads Config/, imports content/, keeps state in data/, listens on 127.0.0.1:8080)."
    )

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1, or DEPOT_HOST).")
    var host: String?

    @Option(name: .long, help: "Port to listen on; 0 picks a free one (default 8080, or DEPOT_PORT).")
    var port: Int?

    @Option(name: .customLong("content-dir"), help: "Content packs to import (default content, or DEPOT_CONTENT_DIR).")
    var contentDir: String?

    @Option(
        name: .customLong("database-url"),
        help: "The ledger: sqlite:PATH or postgres://... (default sqlite:<data-dir>/ledger.sqlite, or DEPOT_DATABASE_URL).")
    var databaseURL: String?

    @Option(
        name: .customLong("wait-for-dependencies"),
        help: "Seconds to wait at start for a PostgreSQL ledger that cannot be reached yet (default: without end; 0: not at all).")
    var waitForDependencies: Int64?

    func run() async throws {
        var configuration = try common.load(host: host, port: port, contentDir: contentDir)
        let arenas = AllocatorArenas.applyLimit(
            environment: ProcessInfo.processInfo.environment, cores: ProcessInfo.processInfo.activeProcessorCount)
        let logger = DepotLogging.makeLogger(format: configuration.logFormat)
        if let arenas { logger.debug("allocator arenas limited", metadata: ["arenas": "\(arenas)"]) }
        if let databaseURL { configuration.ledgerURL = databaseURL }
        if configuration.grants.keys.contains(where: \.isDevelopmentKey) {
            logger.warning(
                "DEVELOPMENT CONFIGURATION: grants are signed with the sample key from Config/depot.json; never use it in production")
        }
        logger.info(
            "starting",
            metadata: [
                "data-dir": "\(configuration.dataDirectory)", "content-dir": "\(configuration.contentDirectory)",
                "environment": "\(configuration.environment.rawValue)",
            ])
        if let waitForDependencies, waitForDependencies < 0 {
            throw ValidationError("--wait-for-dependencies takes a number of seconds, 0 or more")
        }
        let opened = try await LedgerOpener.openForServiceGroup(
            configuration.ledgerURL, busyTimeoutSeconds: configuration.ledgerBusyTimeoutSeconds,
            waitSeconds: configuration.ledgerWaitSeconds, waitForServer: waitForDependencies.map { .seconds($0) },
            logger: logger)
        let server = ServingService { [configuration] in
            let application: DepotApplication
            do {
                application = try await DepotApplication.prepare(
                    configuration, logger: logger, unpacker: .childProcess(executable: SelfExecutable.path), ledger: opened.ledger)
            } catch {
                // The ledger is closed here when nothing else will: a SQLite file (a PostgreSQL client ends with the group).
                await LedgerOpener.close(opened.ledger)
                throw error
            }
            Self.logLoaded(application, logger: logger)
            do {
                try await application.makeApplication().run()
            } catch {
                await application.close()
                throw error
            }
            await application.close()
        }
        // The ledger's client first: the group ends its services in reverse order, so it ends after the server.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = opened.client.map { [.init(service: $0)] } ?? []
        services.append(
            .init(
                service: server, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
        )
        try await ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        ).run()
        logger.info("stopped")
    }

    /// Logs what the server loaded: counts, then each bundle.
    private static func logLoaded(_ application: DepotApplication, logger: Logger) {
        logger.info(
            "content loaded",
            metadata: [
                "products": "\(application.catalog.products.count)",
                "bundles": "\(application.catalog.versions.count)",
                "refused": "\(application.refusedPacks)",
            ])
        for version in application.catalog.versions {
            logger.info(
                "bundle",
                metadata: [
                    "content": "\(version.contentId)", "version": "\(version.version)", "digest": "\(version.digest)",
                    "size": "\(version.size)",
                ])
        }
    }
}

/// The server as one service of `depot serve`'s service group: it prepares the application, runs it until the
/// group shuts down gracefully, and closes it.
private struct ServingService: Service {
    let body: @Sendable () async throws -> Void

    func run() async throws {
        try await body()
    }
}
