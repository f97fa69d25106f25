import DepotCore
import GRDB

extension SQLiteLedger {
    package func catalogRevision() async throws(LedgerError) -> Int64 {
        try await read("reading the catalog revision") { db in
            try Int64.fetchOne(db, sql: "SELECT revision FROM catalog_revision WHERE id = 1") ?? 0
        }
    }

    package func catalogSnapshot() async throws(LedgerError) -> CatalogSnapshot {
        try await read("reading the catalog") { db in
            let revision = try Row.fetchOne(db, sql: "SELECT revision, changed_at FROM catalog_revision WHERE id = 1")
            let products = try Row.fetchAll(db, sql: "SELECT id, type, title, period_days FROM catalog_products ORDER BY id")
                .map(Self.decodeProduct)
            let versions = try Row.fetchAll(
                db, sql: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions ORDER BY \(CatalogRows.versionOrder)"
            ).map(Self.decodeVersion)
            let deltas = try Row.fetchAll(
                db,
                sql: """
                    SELECT product_id, content_id, base_version, target_version, digest, size FROM catalog_deltas
                    ORDER BY product_id, content_id, target_version, base_version
                    """
            ).map { row in
                DeltaBundle(
                    productId: try row.decode(atIndex: 0), contentId: try row.decode(atIndex: 1),
                    baseVersion: try row.decode(atIndex: 2), targetVersion: try row.decode(atIndex: 3),
                    digest: try row.decode(atIndex: 4), size: try row.decode(atIndex: 5))
            }
            return CatalogSnapshot(
                revision: try revision?.decode(atIndex: 0) ?? 0, changedAt: try revision?.decode(atIndex: 1) ?? 0,
                products: products, versions: versions, deltas: deltas)
        }
    }

    package func catalogProduct(id: String) async throws(LedgerError) -> CatalogProduct? {
        try await read("reading product \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT id, type, title, period_days FROM catalog_products WHERE id = ?", arguments: [id])
                .map(Self.decodeProduct)
        }
    }

    package func writeProduct(
        _ product: CatalogProduct, keepExisting: Bool, now: Int64
    ) async throws(LedgerError)
        -> ProductWriteOutcome
    {
        try await write("writing product \(product.id)") { db in
            let existing = try Row.fetchOne(
                db, sql: "SELECT id, type, title, period_days FROM catalog_products WHERE id = ?", arguments: [product.id]
            ).map(Self.decodeProduct)
            if let existing {
                if existing == product { return .unchanged }
                if keepExisting { return .kept(existing) }
                if existing.hasOtherTerms(than: product), try Self.isSold(db, productId: product.id) {
                    return .typeLocked(existing)
                }
                try db.execute(
                    sql: "UPDATE catalog_products SET type = ?, title = ?, period_days = ?, updated_at = ? WHERE id = ?",
                    arguments: [product.type.rawValue, product.title, product.periodDays, now, product.id])
                try Self.bumpRevision(db, changedAt: now)
                return .updated
            }
            try db.execute(
                sql: """
                    INSERT INTO catalog_products (id, type, title, period_days, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [product.id, product.type.rawValue, product.title, product.periodDays, now, now])
            try Self.bumpRevision(db, changedAt: keepExisting ? nil : now)
            return .created
        }
    }

    package func catalogVersions(productId: String) async throws(LedgerError) -> [CatalogVersion] {
        try await read("reading the versions of \(productId)") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = ? ORDER BY \(CatalogRows.versionOrder)",
                arguments: [productId]
            ).map(Self.decodeVersion)
        }
    }

    package func addVersion(
        _ version: ContentVersion, state: VersionState, now: Int64
    ) async throws(LedgerError)
        -> AddVersionOutcome
    {
        try await write("recording \(version.contentId) version \(version.version)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM catalog_products WHERE id = ?", arguments: [version.productId]) != nil
            else { return .unknownProduct }
            if let owner = try String.fetchOne(
                db, sql: "SELECT product_id FROM catalog_versions WHERE content_id = ? AND product_id <> ? LIMIT 1",
                arguments: [version.contentId, version.productId])
            {
                return .contentOwnedByOtherProduct(owner)
            }
            if let existing = try Self.fetchVersion(db, version.productId, version.contentId, version.version) {
                return existing.isSamePack(as: version) ? .unchanged(existing) : .conflict(existing: existing)
            }
            let record = CatalogVersion(
                content: version, state: state, stagedAt: now, activatedAt: state == .published ? version.publishedAt : nil)
            try db.execute(
                sql: "INSERT INTO catalog_versions (\(CatalogRows.versionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                arguments: [
                    version.productId, version.contentId, version.version, version.digest, version.size,
                    version.unpackedSize, version.publishedAt, state.rawValue, now, record.activatedAt,
                ])
            try Self.bumpRevision(db, changedAt: nil)
            return .added(record)
        }
    }

    package func publishVersion(
        productId: String, contentId: String, version: String, now: Int64
    )
        async throws(LedgerError) -> PublishOutcome
    {
        try await write("publishing \(contentId) version \(version)") { db in
            let versions = try Row.fetchAll(
                db,
                sql: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = ? AND content_id = ?",
                arguments: [productId, contentId]
            ).map(Self.decodeVersion)
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
                try db.execute(
                    sql: """
                        UPDATE catalog_versions SET state = ?, activated_at = CASE WHEN ? THEN ? ELSE activated_at END
                        WHERE product_id = ? AND content_id = ? AND version = ?
                        """,
                    arguments: [change.state.rawValue, change.version == version, now, productId, contentId, change.version])
            }
            if !plan.changes.isEmpty { try Self.bumpRevision(db, changedAt: now) }
            guard let published = try Self.fetchVersion(db, productId, contentId, version) else {
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
        try await write("deleting \(contentId) version \(version)") { db in
            guard let existing = try Self.fetchVersion(db, productId, contentId, version) else { return .unknownVersion }
            guard !existing.state.wasPublished else { return .wasPublished }
            try db.execute(
                sql: "DELETE FROM catalog_versions WHERE product_id = ? AND content_id = ? AND version = ?",
                arguments: [productId, contentId, version])
            try Self.bumpRevision(db, changedAt: nil)
            return .deleted
        }
    }

    package func recordDelta(_ delta: DeltaBundle) async throws(LedgerError) -> Bool {
        try await write("recording a delta of \(delta.contentId)") { db in
            try db.execute(
                sql: """
                    INSERT INTO catalog_deltas (product_id, content_id, base_version, target_version, digest, size)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """,
                arguments: [delta.productId, delta.contentId, delta.baseVersion, delta.targetVersion, delta.digest, delta.size])
            guard db.changesCount > 0 else { return false }
            try Self.bumpRevision(db, changedAt: nil)
            return true
        }
    }

    // MARK: Rows

    /// Increments the revision; `changedAt` (a change apps see) moves the lists' Last-Modified forward.
    static func bumpRevision(_ db: Database, changedAt: Int64?) throws {
        try db.execute(
            sql: "UPDATE catalog_revision SET revision = revision + 1, changed_at = MAX(changed_at, COALESCE(?, 0)) WHERE id = 1",
            arguments: [changedAt])
    }

    /// Whether the product has a version (in any state) or a transaction: then its type and period are fixed.
    static func isSold(_ db: Database, productId: String) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM catalog_versions WHERE product_id = ?)
                    OR EXISTS (SELECT 1 FROM transactions WHERE product_id = ?)
                """,
            arguments: [productId, productId]) ?? false
    }

    static func fetchVersion(_ db: Database, _ productId: String, _ contentId: String, _ version: String) throws -> CatalogVersion? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = ? AND content_id = ? AND version = ?",
            arguments: [productId, contentId, version]
        ).map(decodeVersion)
    }

    static func decodeVersion(_ row: Row) throws -> CatalogVersion {
        try CatalogRows.version(
            productId: row.decode(atIndex: 0), contentId: row.decode(atIndex: 1), version: row.decode(atIndex: 2),
            digest: row.decode(atIndex: 3), size: row.decode(atIndex: 4), unpackedSize: row.decode(atIndex: 5),
            publishedAt: row.decode(atIndex: 6), state: row.decode(atIndex: 7), failureReason: row.decode(atIndex: 8),
            stagedAt: row.decode(atIndex: 9), activatedAt: row.decode(atIndex: 10))
    }

    static func decodeProduct(_ row: Row) throws -> CatalogProduct {
        try CatalogRows.product(
            id: row.decode(atIndex: 0), type: row.decode(atIndex: 1), title: row.decode(atIndex: 2),
            periodDays: row.decode(atIndex: 3))
    }
}
