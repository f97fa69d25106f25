import DepotCore

/// Column lists, row decoding and the shared statements of the catalog tables.
enum CatalogRows {
    static let productColumns = "id, type, title, period_days"
    static let versionColumns =
        "product_id, content_id, version, digest, size, unpacked_size, published_at, state, failure_reason, staged_at, activated_at, "
        + "channel, rollout_percent, rollout_halted"
    static let versionOrder = "product_id, content_id, published_at, version"

    /// A version record from its columns in `versionColumns` order.
    static func version(_ row: SQLRow) throws -> CatalogVersion {
        let contentId = try row.text(1)
        let version = try row.text(2)
        let stateName = try row.text(7)
        guard let state = VersionState(rawValue: stateName) else {
            throw LedgerError.corrupt("version \(version) of \(contentId) has the unknown state \(stateName)")
        }
        return CatalogVersion(
            content: ContentVersion(
                productId: try row.text(0), contentId: contentId, version: version, publishedAt: try row.integer(6),
                digest: try row.digest(3), size: try row.integer(4), unpackedSize: try row.integer(5)),
            state: state, stagedAt: try row.integer(9), activatedAt: try row.optionalInteger(10),
            failureReason: try row.optionalText(8), release: try release(row, version: version, contentId: contentId))
    }

    /// A version's release from its `channel`, `rollout_percent` and `rollout_halted` columns (11 to 13).
    private static func release(_ row: SQLRow, version: String, contentId: String) throws -> VersionRelease {
        let channelName = try row.text(11)
        guard let channel = VersionRelease.Channel(rawValue: channelName) else {
            throw LedgerError.corrupt("version \(version) of \(contentId) has the unknown channel \(channelName)")
        }
        let percent = try row.integer(12)
        guard (1...100).contains(percent) else {
            throw LedgerError.corrupt("version \(version) of \(contentId) rolls out to \(percent)%")
        }
        return VersionRelease(channel: channel, percent: Int(percent), halted: try row.integer(13) != 0)
    }

    /// The columns that record a version's release (SQLite `v12-version-releases`, PostgreSQL 12): a version
    /// recorded before releases existed is a full production one. And the index that counts each version's reach.
    static let releaseSchema: [String] = [
        "ALTER TABLE catalog_versions ADD COLUMN channel TEXT NOT NULL DEFAULT 'production' CHECK (channel IN ('production', 'beta'))",
        "ALTER TABLE catalog_versions ADD COLUMN rollout_percent INTEGER NOT NULL DEFAULT 100 CHECK (rollout_percent BETWEEN 1 AND 100)",
        "ALTER TABLE catalog_versions ADD COLUMN rollout_halted INTEGER NOT NULL DEFAULT 0 CHECK (rollout_halted IN (0, 1))",
        // How far each version reached (`versionReach`) is read by content and version.
        "CREATE INDEX deliveries_by_content_version ON deliveries(content_id, version)",
    ]

    /// A product record from its columns in `productColumns` order.
    static func product(_ row: SQLRow) throws -> CatalogProduct {
        let id = try row.text(0)
        let typeName = try row.text(1)
        guard let type = ProductType(rawValue: typeName) else {
            throw LedgerError.corrupt("product \(id) has the unknown type \(typeName)")
        }
        return CatalogProduct(id: id, type: type, title: try row.text(2), periodDays: try row.optionalInteger(3).map { Int($0) })
    }

    /// Locks the revision row: catalog writers from every instance run one after the other (on SQLite, the
    /// write transaction does so already).
    static func lock(_ session: any SQLSession) async throws {
        try await session.execute("SELECT revision FROM catalog_revision WHERE id = 1\(.forUpdate)")
    }

    /// Whether the product has a version (in any state) or a transaction: then its type and period are fixed.
    static func isSold(_ session: any SQLSession, productId: String) async throws -> Bool {
        try await session.row(
            """
            SELECT EXISTS (SELECT 1 FROM catalog_versions WHERE product_id = \(productId))
                OR EXISTS (SELECT 1 FROM transactions WHERE product_id = \(productId))
            """)?.boolean(0) ?? false
    }

    /// Increments the revision; `changedAt` (a change apps see) moves the lists' Last-Modified forward.
    static func bumpRevision(_ session: any SQLSession, changedAt: Int64?) async throws {
        try await session.execute(
            """
            UPDATE catalog_revision SET revision = revision + 1,
                changed_at = \(.greatest)(changed_at, COALESCE(\(changedAt), 0)) WHERE id = 1
            """)
    }

    /// One version, if recorded.
    static func version(
        _ session: any SQLSession, _ productId: String, _ contentId: String, _ version: String
    ) async throws -> CatalogVersion? {
        try await session.row(
            """
            SELECT \(unescaped: versionColumns) FROM catalog_versions
            WHERE product_id = \(productId) AND content_id = \(contentId) AND version = \(version)
            """
        ).map(Self.version)
    }

    /// Product prefixes as stored: one per line.
    static func prefixes(_ stored: String) -> [String] {
        stored.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
