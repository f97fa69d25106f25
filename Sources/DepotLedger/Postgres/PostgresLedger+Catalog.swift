import DepotCore
import Logging
import PostgresNIO

extension PostgresLedger {
    package func catalogRevision() async throws(LedgerError) -> Int64 {
        let rows = try await query("reading the catalog revision", "SELECT revision FROM catalog_revision WHERE id = 1")
        return try Self.decoding("reading the catalog revision") { try rows.first?.decode(Int64.self) ?? 0 }
    }

    package func catalogSnapshot() async throws(LedgerError) -> CatalogSnapshot {
        try await transact("reading the catalog") { c, logger in
            // One snapshot for every table read below.
            try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let revisionRows = try await c.query("SELECT revision, changed_at FROM catalog_revision WHERE id = 1", logger: logger)
                .collect()
            var revision: (Int64, Int64) = (0, 0)
            if let row = revisionRows.first { revision = try row.decode((Int64, Int64).self) }
            let products = try await c.query(
                "SELECT id, type, title, period_days FROM catalog_products ORDER BY id", logger: logger
            ).collect().map(Self.decodeProduct)
            let versions = try await c.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions ORDER BY \(CatalogRows.versionOrder)"),
                logger: logger
            ).collect().map(Self.decodeVersion)
            let deltas = try await c.query(
                """
                SELECT product_id, content_id, base_version, target_version, digest, size FROM catalog_deltas
                ORDER BY product_id, content_id, target_version, base_version
                """, logger: logger
            ).collect().map { row in
                let (product, content, base, target, digest, size) = try row.decode((String, String, String, String, String, Int64).self)
                return DeltaBundle(
                    productId: product, contentId: content, baseVersion: base, targetVersion: target, digest: digest, size: size)
            }
            return CatalogSnapshot(
                revision: revision.0, changedAt: revision.1, products: products, versions: versions, deltas: deltas)
        }
    }

    package func catalogProduct(id: String) async throws(LedgerError) -> CatalogProduct? {
        let rows = try await query(
            "reading product \(id)", "SELECT id, type, title, period_days FROM catalog_products WHERE id = \(id)")
        return try Self.decoding("reading product \(id)") { try rows.first.map(Self.decodeProduct) }
    }

    package func writeProduct(
        _ product: CatalogProduct, keepExisting: Bool, now: Int64
    ) async throws(LedgerError)
        -> ProductWriteOutcome
    {
        try await transact("writing product \(product.id)") { c, logger in
            try await Self.lockCatalog(c, logger)
            let existing = try await c.query(
                "SELECT id, type, title, period_days FROM catalog_products WHERE id = \(product.id)", logger: logger
            ).collect().first.map(Self.decodeProduct)
            let days = product.periodDays.map { Int64($0) }
            if let existing {
                if existing == product { return .unchanged }
                if keepExisting { return .kept(existing) }
                if existing.hasOtherTerms(than: product), try await Self.isSold(c, logger, productId: product.id) {
                    return .typeLocked(existing)
                }
                try await c.query(
                    """
                    UPDATE catalog_products SET type = \(product.type.rawValue), title = \(product.title),
                        period_days = \(days), updated_at = \(now) WHERE id = \(product.id)
                    """, logger: logger)
                try await Self.bumpRevision(c, logger, changedAt: now)
                return .updated
            }
            try await c.query(
                """
                INSERT INTO catalog_products (id, type, title, period_days, created_at, updated_at)
                VALUES (\(product.id), \(product.type.rawValue), \(product.title), \(days), \(now), \(now))
                """, logger: logger)
            try await Self.bumpRevision(c, logger, changedAt: keepExisting ? nil : now)
            return .created
        }
    }

    package func catalogVersions(productId: String) async throws(LedgerError) -> [CatalogVersion] {
        var sql = PostgresQuery(
            unsafeSQL:
                "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = $1 ORDER BY \(CatalogRows.versionOrder)")
        sql.binds.append(productId)
        let rows = try await query("reading the versions of \(productId)", sql)
        return try Self.decoding("reading the versions of \(productId)") { try rows.map(Self.decodeVersion) }
    }

    package func addVersion(
        _ version: ContentVersion, state: VersionState, now: Int64
    ) async throws(LedgerError)
        -> AddVersionOutcome
    {
        try await transact("recording \(version.contentId) version \(version.version)") { c, logger in
            try await Self.lockCatalog(c, logger)
            guard
                try await !c.query("SELECT 1 FROM catalog_products WHERE id = \(version.productId)", logger: logger)
                    .collect().isEmpty
            else { return .unknownProduct }
            if let owner = try await c.query(
                """
                SELECT product_id FROM catalog_versions
                WHERE content_id = \(version.contentId) AND product_id <> \(version.productId) LIMIT 1
                """, logger: logger
            ).collect().first?.decode(String.self) {
                return .contentOwnedByOtherProduct(owner)
            }
            if let existing = try await Self.fetchVersion(c, logger, version.productId, version.contentId, version.version) {
                return existing.isSamePack(as: version) ? .unchanged(existing) : .conflict(existing: existing)
            }
            let activatedAt: Int64? = state == .published ? version.publishedAt : nil
            var insert = PostgresQuery(
                unsafeSQL:
                    "INSERT INTO catalog_versions (\(CatalogRows.versionColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10)")
            insert.binds.append(version.productId)
            insert.binds.append(version.contentId)
            insert.binds.append(version.version)
            insert.binds.append(version.digest)
            insert.binds.append(version.size)
            insert.binds.append(version.unpackedSize)
            insert.binds.append(version.publishedAt)
            insert.binds.append(state.rawValue)
            insert.binds.append(now)
            insert.binds.append(activatedAt)
            try await c.query(insert, logger: logger)
            try await Self.bumpRevision(c, logger, changedAt: nil)
            return .added(CatalogVersion(content: version, state: state, stagedAt: now, activatedAt: activatedAt))
        }
    }

    package func publishVersion(
        productId: String, contentId: String, version: String, now: Int64
    )
        async throws(LedgerError) -> PublishOutcome
    {
        try await transact("publishing \(contentId) version \(version)") { c, logger in
            try await Self.lockCatalog(c, logger)
            var select = PostgresQuery(
                unsafeSQL: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = $1 AND content_id = $2")
            select.binds.append(productId)
            select.binds.append(contentId)
            let versions = try await c.query(select, logger: logger).collect().map(Self.decodeVersion)
            let plan: PublishPlan
            do {
                plan = try PublishPlan.plan(
                    publishing: version,
                    among: versions.map { .init(version: $0.content.version, state: $0.state, publishedAt: $0.content.publishedAt) },
                    now: now)
            } catch let refusal as PublishPlan.Refusal {
                return refusal == .unknownVersion ? .unknownVersion : .failedVersion
            }
            for change in plan.changes {
                let isTarget = change.version == version
                try await c.query(
                    """
                    UPDATE catalog_versions SET state = \(change.state.rawValue),
                        activated_at = CASE WHEN \(isTarget) THEN \(now) ELSE activated_at END
                    WHERE product_id = \(productId) AND content_id = \(contentId) AND version = \(change.version)
                    """, logger: logger)
            }
            if !plan.changes.isEmpty { try await Self.bumpRevision(c, logger, changedAt: now) }
            guard let published = try await Self.fetchVersion(c, logger, productId, contentId, version) else {
                throw LedgerError.corrupt("\(contentId) version \(version) vanished while being published")
            }
            return .published(published, rollback: plan.isRollback, changed: !plan.changes.isEmpty)
        }
    }

    package func deleteVersion(
        productId: String, contentId: String, version: String
    ) async throws(LedgerError)
        -> DeleteVersionOutcome
    {
        try await transact("deleting \(contentId) version \(version)") { c, logger in
            try await Self.lockCatalog(c, logger)
            guard let existing = try await Self.fetchVersion(c, logger, productId, contentId, version) else {
                return .unknownVersion
            }
            guard !existing.state.wasPublished else { return .wasPublished }
            try await c.query(
                """
                DELETE FROM catalog_versions
                WHERE product_id = \(productId) AND content_id = \(contentId) AND version = \(version)
                """, logger: logger)
            try await Self.bumpRevision(c, logger, changedAt: nil)
            return .deleted
        }
    }

    package func recordDelta(_ delta: DeltaBundle) async throws(LedgerError) -> Bool {
        try await transact("recording a delta of \(delta.contentId)") { c, logger in
            try await Self.lockCatalog(c, logger)
            let inserted = try await c.query(
                """
                INSERT INTO catalog_deltas (product_id, content_id, base_version, target_version, digest, size)
                VALUES (\(delta.productId), \(delta.contentId), \(delta.baseVersion), \(delta.targetVersion),
                    \(delta.digest), \(delta.size))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger
            ).collect()
            guard !inserted.isEmpty else { return false }
            try await Self.bumpRevision(c, logger, changedAt: nil)
            return true
        }
    }

    // MARK: Rows

    /// Locks the revision row: catalog writers from every instance run one after the other.
    static func lockCatalog(_ c: PostgresConnection, _ logger: Logger) async throws {
        try await c.query("SELECT revision FROM catalog_revision WHERE id = 1 FOR UPDATE", logger: logger)
    }

    /// Whether the product has a version (in any state) or a transaction: then its type and period are fixed.
    static func isSold(_ c: PostgresConnection, _ logger: Logger, productId: String) async throws -> Bool {
        let rows = try await c.query(
            """
            SELECT EXISTS (SELECT 1 FROM catalog_versions WHERE product_id = \(productId))
                OR EXISTS (SELECT 1 FROM transactions WHERE product_id = \(productId))
            """, logger: logger
        ).collect()
        return try rows.first?.decode(Bool.self) ?? false
    }

    /// Increments the revision; `changedAt` (a change apps see) moves the lists' Last-Modified forward.
    static func bumpRevision(_ c: PostgresConnection, _ logger: Logger, changedAt: Int64?) async throws {
        try await c.query(
            """
            UPDATE catalog_revision SET revision = revision + 1,
                changed_at = GREATEST(changed_at, COALESCE(\(changedAt), 0)) WHERE id = 1
            """, logger: logger)
    }

    static func fetchVersion(
        _ c: PostgresConnection, _ logger: Logger, _ productId: String, _ contentId: String, _ version: String
    ) async throws -> CatalogVersion? {
        var select = PostgresQuery(
            unsafeSQL:
                "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = $1 AND content_id = $2 AND version = $3")
        select.binds.append(productId)
        select.binds.append(contentId)
        select.binds.append(version)
        return try await c.query(select, logger: logger).collect().first.map(decodeVersion)
    }

    static func decodeVersion(_ row: PostgresRow) throws -> CatalogVersion {
        let (product, content, version, digest, size, unpacked, publishedAt, state, reason, stagedAt, activatedAt) =
            try row.decode((String, String, String, String, Int64, Int64, Int64, String, String?, Int64, Int64?).self)
        return try CatalogRows.version(
            productId: product, contentId: content, version: version, digest: digest, size: size, unpackedSize: unpacked,
            publishedAt: publishedAt, state: state, failureReason: reason, stagedAt: stagedAt, activatedAt: activatedAt)
    }

    static func decodeProduct(_ row: PostgresRow) throws -> CatalogProduct {
        let (id, type, title, days) = try row.decode((String, String, String, Int64?).self)
        return try CatalogRows.product(id: id, type: type, title: title, periodDays: days)
    }
}
