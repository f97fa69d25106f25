import DepotSettings
import DepotTelemetry
import ArgumentParser
import DepotCore
import DepotServer
import DepotServices
import Foundation
import Hummingbird
import Logging

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
        let application = try await DepotApplication.prepare(
            configuration, logger: logger, unpacker: .childProcess(executable: SelfExecutable.path))
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
        do {
            try await application.makeApplication().runService()
        } catch {
            await application.close()
            throw error
        }
        await application.close()
        logger.info("stopped")
    }
}
