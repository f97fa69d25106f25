import Logging
import PostgresNIO

extension PostgresLedger {
    /// One schema version: statements run in order, in one transaction. Never edit a released migration:
    /// add the next one.
    struct Migration: Sendable {
        var version: Int64
        var name: String
        var statements: [String]
    }

    /// Brings the schema to the newest version, recording each in `depot_schema_migrations`.
    ///
    /// Each migration runs in its own transaction that first takes `pg_advisory_xact_lock`, so instances
    /// starting together migrate one after the other and the later ones find the work done. Running it on
    /// an up-to-date database changes nothing.
    package func migrate() async throws(LedgerError) {
        do {
            try await client.withConnection { connection in
                try await Self.migrate(on: connection, logger: self.logger)
            }
        } catch {
            throw Self.ledgerError(error, while: "migrating")
        }
    }

    /// Runs the missing migrations on `connection`, each in its own transaction.
    static func migrate(on connection: PostgresConnection, logger: Logger) async throws(LedgerError) {
        for migration in migrations {
            do {
                try await connection.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLockKey))", logger: logger)
                    try await connection.query(
                        """
                        CREATE TABLE IF NOT EXISTS depot_schema_migrations (
                            version BIGINT PRIMARY KEY, name TEXT NOT NULL,
                            applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                        """, logger: logger)
                    let applied = try await connection.query(
                        "SELECT version FROM depot_schema_migrations WHERE version = \(migration.version)",
                        logger: logger
                    ).collect()
                    guard applied.isEmpty else { return }
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        """
                        INSERT INTO depot_schema_migrations (version, name)
                        VALUES (\(migration.version), \(migration.name))
                        """,
                        logger: logger)
                    logger.info(
                        "ledger schema migrated",
                        metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                }
            } catch {
                let cause = ledgerError(error, while: "migration \(migration.version) \(migration.name)")
                throw .migration(cause.message)
            }
        }
    }

    /// The versioned schema. Times are seconds since 1970 (`*_at`), but for the transaction's own App Store
    /// dates, which keep the App Store's milliseconds (`*_ms`). Same tables and meaning as the SQLite engine.
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "ledger",
            statements: [
                """
                CREATE TABLE transactions (
                    id TEXT PRIMARY KEY,
                    original_id TEXT NOT NULL,
                    product_id TEXT NOT NULL,
                    purchase_date_ms BIGINT NOT NULL,
                    expires_date_ms BIGINT,
                    revocation_date_ms BIGINT,
                    revocation_reason TEXT,
                    quantity BIGINT NOT NULL,
                    app_account_token TEXT,
                    environment TEXT NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'finished')),
                    first_seen_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    finished_at BIGINT
                )
                """,
                "CREATE INDEX transactions_by_original ON transactions(original_id)",
                "CREATE INDEX transactions_by_product_account ON transactions(product_id, app_account_token)",
                "CREATE INDEX transactions_revoked ON transactions(id) WHERE revocation_date_ms IS NOT NULL",
                "CREATE INDEX transactions_pending ON transactions(last_seen_at) WHERE state = 'pending'",
                """
                CREATE TABLE deliveries (
                    transaction_id TEXT NOT NULL,
                    content_id TEXT NOT NULL,
                    version TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    grants_issued BIGINT NOT NULL DEFAULT 0,
                    first_granted_at BIGINT,
                    last_activity_at BIGINT NOT NULL,
                    confirmed_at BIGINT,
                    confirmed_digest TEXT,
                    PRIMARY KEY (transaction_id, content_id, version)
                )
                """,
                """
                CREATE TABLE served_coverage (
                    transaction_id TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    bytes_covered BIGINT NOT NULL DEFAULT 0,
                    bytes_sent BIGINT NOT NULL DEFAULT 0,
                    requests BIGINT NOT NULL DEFAULT 0,
                    first_served_at BIGINT NOT NULL,
                    last_served_at BIGINT NOT NULL,
                    last_client TEXT NOT NULL,
                    PRIMARY KEY (transaction_id, digest)
                )
                """,
                """
                CREATE TABLE served_ranges (
                    transaction_id TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    range_start BIGINT NOT NULL,
                    range_end BIGINT NOT NULL CHECK (range_end > range_start),
                    PRIMARY KEY (transaction_id, digest, range_start)
                )
                """,
                """
                CREATE TABLE notifications (
                    uuid TEXT PRIMARY KEY,
                    type TEXT NOT NULL,
                    subtype TEXT,
                    transaction_id TEXT,
                    received_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX notifications_by_transaction ON notifications(transaction_id)",
                """
                CREATE TABLE redemption_attempts (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    transaction_id TEXT NOT NULL,
                    app_account_token TEXT,
                    client TEXT NOT NULL,
                    at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX redemption_attempts_by_transaction ON redemption_attempts(transaction_id, at)",
                """
                CREATE TABLE audit_events (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    transaction_id TEXT NOT NULL,
                    at BIGINT NOT NULL,
                    event TEXT NOT NULL,
                    detail TEXT NOT NULL
                )
                """,
                "CREATE INDEX audit_events_by_transaction ON audit_events(transaction_id, id)",
            ]),
        Migration(version: 2, name: "offers", statements: offersSchema),
        Migration(version: 3, name: "catalog", statements: CatalogSchema.statements(integer: "BIGINT")),
        Migration(version: 4, name: "uploads", statements: uploadsSchema),
        Migration(version: 5, name: "version-jobs", statements: VersionJobSchema.statements(integer: "BIGINT")),
        Migration(
            version: 6, name: "apple-outbox",
            statements: StoreOutboxSchema.statements(integer: "BIGINT", identity: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")),
        Migration(version: 7, name: "transaction-type", statements: transactionTypeSchema),
        Migration(version: 8, name: "transaction-store", statements: TransactionRows.storeSchema),
        Migration(version: 9, name: "transaction-store-handle", statements: TransactionRows.storeHandleSchema),
        Migration(version: 10, name: "leases", statements: LeaseSchema.statements(integer: "BIGINT")),
        Migration(version: 11, name: "upload-parts", statements: UploadPartSchema.statements(integer: "BIGINT")),
        Migration(version: 12, name: "version-releases", statements: CatalogRows.releaseSchema),
        Migration(version: 13, name: "served-intervals", statements: ServedCoverageRows.intervalCountSchema),
        Migration(version: 14, name: "transaction-refunds", statements: TransactionRows.refundSchema),
        Migration(version: 15, name: "refund-reviews", statements: RefundReviewRows.statements(integer: "BIGINT")),
        Migration(version: 16, name: "transaction-rentals", statements: TransactionRows.rentalSchema),
        Migration(version: 17, name: "transactions-by-account", statements: AccountHistoryRows.schema),
    ]

    /// The product's type when a transaction was first recorded: the type it is judged by for good. Rows recorded
    /// before stay NULL, judged by the catalog's type. Same column as the SQLite engine's `v7-transaction-type`.
    static let transactionTypeSchema: [String] = [
        "ALTER TABLE transactions ADD COLUMN product_type TEXT"
    ]

    /// Resumable uploads (tus): one row per upload; its bytes are on disk, `upload_offset` of them durable.
    /// `length` is NULL while the client defers it. Same table as the SQLite engine's `v4-uploads`.
    static let uploadsSchema: [String] = [
        """
        CREATE TABLE uploads (
            id TEXT PRIMARY KEY,
            publisher TEXT NOT NULL,
            length BIGINT CHECK (length IS NULL OR length >= 0),
            upload_offset BIGINT NOT NULL DEFAULT 0 CHECK (upload_offset >= 0),
            metadata TEXT NOT NULL DEFAULT '',
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            CHECK (length IS NULL OR upload_offset <= length)
        )
        """,
        "CREATE INDEX uploads_by_expiry ON uploads(expires_at)",
    ]

    /// Every bundle a redeem offered per transaction and content (full or delta), which a finish is judged
    /// against, filled from the deliveries recorded before it existed; and the signedDate of the latest
    /// revocation fact per transaction.
    static let offersSchema: [String] = [
        """
        CREATE TABLE offers (
            transaction_id TEXT NOT NULL,
            content_id TEXT NOT NULL,
            version TEXT NOT NULL,
            digest TEXT NOT NULL,
            first_offered_at BIGINT NOT NULL,
            PRIMARY KEY (transaction_id, content_id, digest)
        )
        """,
        """
        INSERT INTO offers (transaction_id, content_id, version, digest, first_offered_at)
        SELECT transaction_id, content_id, version, digest, COALESCE(first_granted_at, last_activity_at)
        FROM deliveries WHERE grants_issued > 0
        """,
        // The App Store signedDate of the latest revocation fact applied (a REFUND, REVOKE or REFUND_REVERSED
        // notification): an older one arriving later (Apple retries keep their signedDate) changes nothing.
        "ALTER TABLE transactions ADD COLUMN last_fact_signed_ms BIGINT",
    ]
}
