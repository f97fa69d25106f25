import DepotCore

extension SQLLedger {
    package func catalogRevision() async throws(LedgerError) -> Int64 {
        try await transaction(.read, "reading the catalog revision") { session in
            try await session.row("SELECT revision FROM catalog_revision WHERE id = 1")?.integer(0) ?? 0
        }
    }

    package func catalogSnapshot() async throws(LedgerError) -> CatalogSnapshot {
        try await transaction(.snapshot, "reading the catalog") { session in
            let revision = try await session.row("SELECT revision, changed_at FROM catalog_revision WHERE id = 1")
            let products = try await session.rows(
                "SELECT \(unescaped: CatalogRows.productColumns) FROM catalog_products ORDER BY id"
            ).map(CatalogRows.product)
            let versions = try await session.rows(
                "SELECT \(unescaped: CatalogRows.versionColumns) FROM catalog_versions ORDER BY \(unescaped: CatalogRows.versionOrder)"
            ).map(CatalogRows.version)
            let deltas = try await session.rows(
                """
                SELECT product_id, content_id, base_version, target_version, digest, size FROM catalog_deltas
                ORDER BY product_id, content_id, target_version, base_version
                """
            ).map { row in
                DeltaBundle(
                    productId: try row.text(0), contentId: try row.text(1), baseVersion: try row.text(2),
                    targetVersion: try row.text(3), digest: try row.digest(4), size: try row.integer(5))
            }
            return CatalogSnapshot(
                revision: try revision?.integer(0) ?? 0, changedAt: try revision?.integer(1) ?? 0, products: products,
                versions: versions, deltas: deltas)
        }
    }

    package func catalogProduct(id: String) async throws(LedgerError) -> CatalogProduct? {
        try await transaction(.read, "reading product \(id)") { session in
            try await session.row("SELECT \(unescaped: CatalogRows.productColumns) FROM catalog_products WHERE id = \(id)")
                .map(CatalogRows.product)
        }
    }

    package func writeProduct(
        _ product: CatalogProduct, keepExisting: Bool, now: Int64
    ) async throws(LedgerError)
        -> ProductWriteOutcome
    {
        try await transaction(.write, "writing product \(product.id)") { session in
            try await CatalogRows.lock(session)
            let existing = try await session.row(
                "SELECT \(unescaped: CatalogRows.productColumns) FROM catalog_products WHERE id = \(product.id)"
            ).map(CatalogRows.product)
            if let existing {
                if existing == product { return .unchanged }
                if keepExisting { return .kept(existing) }
                if existing.hasOtherTerms(than: product), try await CatalogRows.isSold(session, productId: product.id) {
                    return .typeLocked(existing)
                }
                try await session.execute(
                    """
                    UPDATE catalog_products SET type = \(product.type.rawValue), title = \(product.title),
                        period_days = \(product.periodDays), updated_at = \(now) WHERE id = \(product.id)
                    """)
                try await CatalogRows.bumpRevision(session, changedAt: now)
                return .updated
            }
            try await session.execute(
                """
                INSERT INTO catalog_products (id, type, title, period_days, created_at, updated_at)
                VALUES (\(product.id), \(product.type.rawValue), \(product.title), \(product.periodDays), \(now), \(now))
                """)
            try await CatalogRows.bumpRevision(session, changedAt: keepExisting ? nil : now)
            return .created
        }
    }

    package func catalogVersions(productId: String) async throws(LedgerError) -> [CatalogVersion] {
        try await transaction(.read, "reading the versions of \(productId)") { session in
            try await session.rows(
                """
                SELECT \(unescaped: CatalogRows.versionColumns) FROM catalog_versions WHERE product_id = \(productId)
                ORDER BY \(unescaped: CatalogRows.versionOrder)
                """
            ).map(CatalogRows.version)
        }
    }

    package func addVersion(
        _ version: ContentVersion, state: VersionState, now: Int64
    ) async throws(LedgerError)
        -> AddVersionOutcome
    {
        try await transaction(.write, "recording \(version.contentId) version \(version.version)") { session in
            try await CatalogRows.lock(session)
            guard try await session.row("SELECT 1 FROM catalog_products WHERE id = \(version.productId)") != nil else {
                return .unknownProduct
            }
            if let owner = try await session.row(
                """
                SELECT product_id FROM catalog_versions
                WHERE content_id = \(version.contentId) AND product_id <> \(version.productId) LIMIT 1
                """)
            {
                return .contentOwnedByOtherProduct(try owner.text(0))
            }
            if let existing = try await CatalogRows.version(session, version.productId, version.contentId, version.version) {
                return existing.isSamePack(as: version) ? .unchanged(existing) : .conflict(existing: existing)
            }
            let activatedAt: Int64? = state == .published ? version.publishedAt : nil
            try await session.execute(
                """
                INSERT INTO catalog_versions (\(unescaped: CatalogRows.versionColumns))
                VALUES (\(version.productId), \(version.contentId), \(version.version), \(version.digest), \(version.size),
                    \(version.unpackedSize), \(version.publishedAt), \(state.rawValue), NULL, \(now), \(activatedAt),
                    'production', 100, 0)
                """)
            try await CatalogRows.bumpRevision(session, changedAt: nil)
            return .added(CatalogVersion(content: version, state: state, stagedAt: now, activatedAt: activatedAt))
        }
    }

    package func publishVersion(
        productId: String, contentId: String, version: String, release: VersionRelease, now: Int64
    )
        async throws(LedgerError) -> PublishOutcome
    {
        try await transaction(.write, "publishing \(contentId) version \(version)") { session in
            try await CatalogRows.lock(session)
            let versions = try await session.rows(
                """
                SELECT \(unescaped: CatalogRows.versionColumns) FROM catalog_versions
                WHERE product_id = \(productId) AND content_id = \(contentId)
                """
            ).map(CatalogRows.version)
            let plan: PublishPlan
            do {
                plan = try PublishPlan.plan(
                    publishing: version, release: release,
                    among: versions.map {
                        .init(version: $0.content.version, state: $0.state, publishedAt: $0.content.publishedAt, release: $0.release)
                    },
                    now: now)
            } catch let refusal as PublishPlan.Refusal {
                switch refusal {
                case .unknownVersion: return .unknownVersion
                case .failedVersion: return .failedVersion
                default: return .refused(refusal)
                }
            }
            for change in plan.changes {
                try await session.execute(
                    """
                    UPDATE catalog_versions SET state = \(change.state.rawValue), channel = \(change.release.channel.rawValue),
                        rollout_percent = \(change.release.percent), rollout_halted = \(change.release.halted ? 1 : 0),
                        activated_at = CASE WHEN \(change.version == version) THEN \(now) ELSE activated_at END
                    WHERE product_id = \(productId) AND content_id = \(contentId) AND version = \(change.version)
                    """)
            }
            if !plan.changes.isEmpty { try await CatalogRows.bumpRevision(session, changedAt: now) }
            guard let published = try await CatalogRows.version(session, productId, contentId, version) else {
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
        try await transaction(.write, "deleting \(contentId) version \(version)") { session in
            try await CatalogRows.lock(session)
            guard let existing = try await CatalogRows.version(session, productId, contentId, version) else {
                return .unknownVersion
            }
            guard !existing.state.wasPublished else { return .wasPublished }
            try await session.execute(
                """
                DELETE FROM catalog_versions
                WHERE product_id = \(productId) AND content_id = \(contentId) AND version = \(version)
                """)
            try await CatalogRows.bumpRevision(session, changedAt: nil)
            return .deleted
        }
    }

    package func recordDelta(_ delta: DeltaBundle) async throws(LedgerError) -> Bool {
        try await transaction(.write, "recording a delta of \(delta.contentId)") { session in
            try await CatalogRows.lock(session)
            let inserted = try await session.execute(
                """
                INSERT INTO catalog_deltas (product_id, content_id, base_version, target_version, digest, size)
                VALUES (\(delta.productId), \(delta.contentId), \(delta.baseVersion), \(delta.targetVersion),
                    \(delta.digest), \(delta.size))
                ON CONFLICT DO NOTHING
                """)
            guard inserted > 0 else { return false }
            try await CatalogRows.bumpRevision(session, changedAt: nil)
            return true
        }
    }
}
