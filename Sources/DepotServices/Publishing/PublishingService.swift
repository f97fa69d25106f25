import DepotCore
import DepotLedger
import Logging

/// A publisher's changes to the catalog: products created and edited, versions submitted from uploads,
/// published (or rolled back to), and deleted while never published. Every change is installed here at once
/// (`refreshCatalog`) and reaches other instances through the catalog revision; what edges cache of it is purged.
package struct PublishingService: Sendable {
    /// Where the catalog lives.
    package let ledger: any Ledger
    /// Makes version jobs of uploads.
    package let runner: VersionJobRunner
    /// Builds delta bundles once a version is published.
    package let deltas: DeltaBuilder
    /// Where the purges of changes go.
    package let purges: PurgeQueue
    /// Installs the ledger's catalog here at once.
    package let refreshCatalog: @Sendable () async -> Void
    /// Now, in seconds since 1970.
    package let clock: @Sendable () -> Int64
    /// Where changes are logged.
    package let logger: Logger

    /// A publishing service.
    package init(
        ledger: any Ledger, runner: VersionJobRunner, deltas: DeltaBuilder, purges: PurgeQueue,
        refreshCatalog: @escaping @Sendable () async -> Void, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.ledger = ledger
        self.runner = runner
        self.deltas = deltas
        self.purges = purges
        self.refreshCatalog = refreshCatalog
        self.clock = clock
        self.logger = logger
    }

    /// What a publish did.
    package struct Publication: Sendable {
        /// The version now published.
        package var version: CatalogVersion
        /// Whether it went back to an older version.
        package var rollback: Bool
        /// False when it already was the only published version.
        package var changed: Bool
    }

    // MARK: products

    /// Creates or updates a product: `created` or `updated`/`unchanged`. Once it has a version or a transaction,
    /// its type and period are fixed (only its title may change).
    package func writeProduct(_ product: CatalogProduct) async throws(PublishingError) -> ProductWriteOutcome {
        let now = clock()
        let outcome = try await call { () async throws(LedgerError) in
            try await ledger.writeProduct(product, keepExisting: false, now: now)
        }
        if case .typeLocked(let existing) = outcome { throw .typeLocked(existing: existing) }
        await refreshCatalog()
        return outcome
    }

    /// The product, or `unknownProduct`.
    package func product(_ productId: String) async throws(PublishingError) -> CatalogProduct {
        guard let product = try await call({ () async throws(LedgerError) in try await ledger.catalogProduct(id: productId) }) else {
            throw .unknownProduct(productId: productId)
        }
        return product
    }

    /// The product's versions in the catalog.
    package func versions(_ productId: String) async throws(PublishingError) -> [CatalogVersion] {
        try await call { () async throws(LedgerError) in try await ledger.catalogVersions(productId: productId) }
    }

    /// How far each version of the product reached (offered, delivered), by content id and version.
    package func reach(_ productId: String) async throws(PublishingError) -> [ContentAtVersion: VersionReach] {
        let rows = try await call { () async throws(LedgerError) in try await ledger.versionReach(productId: productId) }
        return Dictionary(
            rows.map { (ContentAtVersion(contentId: $0.contentId, version: $0.version), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The product's version jobs not yet staged (on their way from an upload, or failed), newest first.
    package func pendingJobs(_ productId: String) async throws(PublishingError) -> [VersionJob] {
        try await call { () async throws(LedgerError) in try await ledger.versionJobs(productId: productId) }
            .filter { $0.state != .staged }
    }

    /// The content a version route names: `contentId` when given, else the only content of the product at
    /// that version.
    package func content(productId: String, version: String, contentId: String?) async throws(PublishingError) -> String {
        if let contentId { return contentId }
        let contents = Set(try await versions(productId).filter { $0.content.version == version }.map(\.content.contentId))
        switch contents.count {
        case 0:
            _ = try await product(productId)
            throw .unknownVersion(contentId: productId, version: version)
        case 1:
            return contents.first!
        default:
            throw .ambiguousVersion(productId: productId, version: version, contents: contents.sorted())
        }
    }

    // MARK: versions

    /// Submits a version job made from a complete upload of a known product; the runner takes it from there.
    package func submit(_ job: VersionJob, publisher: AuthenticatedPublisher) async throws(PublishingError) {
        let outcome = try await call { () async throws(LedgerError) in try await runner.submit(job, publisher: publisher) }
        if case .inProgress(let live) = outcome { throw .versionInProgress(productId: job.productId, live: live) }
        logger.info(
            "version received",
            metadata: ["publisher": "\(publisher.name)", "product": "\(job.productId)", "version": "\(job.version)", "job": "\(job.id)"])
    }

    /// Publishes a version with `release` (in full by default: it becomes current, or a rollback to it), raises
    /// or halts its rollout, or promotes it from beta (`PublishPlan`); builds its deltas and, when what every
    /// buyer is offered changed, purges what edges cache of the content.
    package func publish(
        productId: String, contentId: String, version: String, release: VersionRelease = .full, publisher: String
    ) async throws(PublishingError) -> Publication {
        let now = clock()
        let outcome = try await call { () async throws(LedgerError) in
            try await ledger.publishVersion(productId: productId, contentId: contentId, version: version, release: release, now: now)
        }
        switch outcome {
        case .published(let record, let rollback, let changed):
            if changed {
                await refreshCatalog()
                deltas.enqueue(record.content)
                if release.isFull { purges.submit(PurgeTags.activated(record.content, rollback: rollback)) }
                logger.info(
                    rollback ? "version rolled back to" : "version published",
                    metadata: [
                        "publisher": "\(publisher)", "content": "\(contentId)", "version": "\(version)", "release": "\(release.summary)",
                    ])
            }
            return Publication(version: record, rollback: rollback, changed: changed)
        case .unknownVersion:
            throw .unknownVersion(contentId: contentId, version: version)
        case .failedVersion:
            throw .versionFailed(contentId: contentId, version: version)
        case .refused(let refusal):
            throw .releaseRefused(contentId: contentId, version: version, refusal)
        }
    }

    /// Halts a version's rollout: nobody new is offered it; buyers who got it keep it.
    package func halt(productId: String, contentId: String, version: String, publisher: String) async throws(PublishingError) -> Publication
    {
        let record = try await record(productId: productId, contentId: contentId, version: version)
        guard record.state == .published, record.release.isPartial else {
            throw .releaseRefused(contentId: contentId, version: version, .notRollingOut)
        }
        var halted = record.release
        halted.halted = true
        return try await publish(productId: productId, contentId: contentId, version: version, release: halted, publisher: publisher)
    }

    /// Promotes a beta version to production, in full or as a rollout to `percent`.
    package func promote(
        productId: String, contentId: String, version: String, percent: Int, publisher: String
    ) async throws(PublishingError) -> Publication {
        let record = try await record(productId: productId, contentId: contentId, version: version)
        guard record.state == .published, record.release.channel == .beta else {
            throw .notBeta(contentId: contentId, version: version)
        }
        return try await publish(
            productId: productId, contentId: contentId, version: version, release: .rollout(percent), publisher: publisher)
    }

    /// One version's record, or `unknownVersion`.
    private func record(productId: String, contentId: String, version: String) async throws(PublishingError) -> CatalogVersion {
        guard
            let record = try await versions(productId).first(where: { $0.content.contentId == contentId && $0.content.version == version })
        else { throw .unknownVersion(contentId: contentId, version: version) }
        return record
    }

    /// Deletes a version that was never published.
    package func delete(productId: String, contentId: String, version: String) async throws(PublishingError) {
        let outcome = try await call { () async throws(LedgerError) in
            try await ledger.deleteVersion(productId: productId, contentId: contentId, version: version)
        }
        switch outcome {
        case .deleted:
            await refreshCatalog()
            purges.submit(PurgeTags.deleted(contentId: contentId, version: version))
        case .unknownVersion:
            throw .unknownVersion(contentId: contentId, version: version)
        case .wasPublished:
            throw .versionWasPublished(contentId: contentId, version: version)
        }
    }

    /// Runs a ledger call; a ledger failure is logged and becomes `unavailable`.
    private func call<T>(_ body: () async throws(LedgerError) -> T) async throws(PublishingError) -> T {
        do {
            return try await body()
        } catch {
            logger.error("publisher request failed in the ledger", metadata: ["error": "\(error)"])
            throw .unavailable
        }
    }
}
