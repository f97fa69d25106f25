import GRDB

extension SQLiteLedger {
    /// The versioned schema. Never edit a registered migration: add the next one.
    ///
    /// Times are seconds since 1970 (`*_at`), but for the transaction's own App Store dates, which keep
    /// the App Store's milliseconds (`*_ms`).
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-ledger") { db in
            for statement in schemaV1 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v2-offers") { db in
            for statement in schemaV2Offers {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v3-catalog") { db in
            for statement in CatalogSchema.statements(integer: "INTEGER") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v4-uploads") { db in
            for statement in schemaV4Uploads {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v5-version-jobs") { db in
            for statement in VersionJobSchema.statements(integer: "INTEGER") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v6-apple-outbox") { db in
            for statement in StoreOutboxSchema.statements(integer: "INTEGER", identity: "INTEGER PRIMARY KEY AUTOINCREMENT") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v7-transaction-type") { db in
            for statement in schemaV7TransactionType {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v8-transaction-store") { db in
            for statement in TransactionRows.storeSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v9-transaction-store-handle") { db in
            for statement in TransactionRows.storeHandleSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v10-leases") { db in
            for statement in LeaseSchema.statements(integer: "INTEGER") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v11-upload-parts") { db in
            for statement in UploadPartSchema.statements(integer: "INTEGER") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v12-version-releases") { db in
            for statement in CatalogRows.releaseSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v13-served-intervals") { db in
            for statement in ServedCoverageRows.intervalCountSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v14-transaction-refunds") { db in
            for statement in TransactionRows.refundSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v15-refund-reviews") { db in
            for statement in RefundReviewRows.statements(integer: "INTEGER") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v16-transaction-rentals") { db in
            for statement in TransactionRows.rentalSchema {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v17-transactions-by-account") { db in
            for statement in AccountHistoryRows.schema {
                try db.execute(sql: statement)
            }
        }
        return migrator
    }()

    static let schemaV1: [String] = [
        """
        CREATE TABLE transactions (
            id TEXT NOT NULL PRIMARY KEY,
            original_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            purchase_date_ms INTEGER NOT NULL,
            expires_date_ms INTEGER,
            revocation_date_ms INTEGER,
            revocation_reason TEXT,
            quantity INTEGER NOT NULL,
            app_account_token TEXT,
            environment TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'finished')),
            first_seen_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            finished_at INTEGER
        )
        """,
        "CREATE INDEX transactions_by_original ON transactions(original_id)",
        "CREATE INDEX transactions_by_product_account ON transactions(product_id, app_account_token)",
        "CREATE INDEX transactions_revoked ON transactions(id) WHERE revocation_date_ms IS NOT NULL",
        "CREATE INDEX transactions_pending ON transactions(last_seen_at) WHERE state = 'pending'",
        // One row per transaction × content × version: grants handed out and the app's confirmation.
        """
        CREATE TABLE deliveries (
            transaction_id TEXT NOT NULL,
            content_id TEXT NOT NULL,
            version TEXT NOT NULL,
            digest TEXT NOT NULL,
            grants_issued INTEGER NOT NULL DEFAULT 0,
            first_granted_at INTEGER,
            last_activity_at INTEGER NOT NULL,
            confirmed_at INTEGER,
            confirmed_digest TEXT,
            PRIMARY KEY (transaction_id, content_id, version)
        )
        """,
        // Bytes served per transaction × bundle: a summary row (also the lock that serialises merges) ...
        """
        CREATE TABLE served_coverage (
            transaction_id TEXT NOT NULL,
            digest TEXT NOT NULL,
            bytes_covered INTEGER NOT NULL DEFAULT 0,
            bytes_sent INTEGER NOT NULL DEFAULT 0,
            requests INTEGER NOT NULL DEFAULT 0,
            first_served_at INTEGER NOT NULL,
            last_served_at INTEGER NOT NULL,
            last_client TEXT NOT NULL,
            PRIMARY KEY (transaction_id, digest)
        )
        """,
        // ... and the merged intervals themselves, disjoint and non-adjacent, [range_start, range_end).
        """
        CREATE TABLE served_ranges (
            transaction_id TEXT NOT NULL,
            digest TEXT NOT NULL,
            range_start INTEGER NOT NULL,
            range_end INTEGER NOT NULL CHECK (range_end > range_start),
            PRIMARY KEY (transaction_id, digest, range_start)
        )
        """,
        """
        CREATE TABLE notifications (
            uuid TEXT NOT NULL PRIMARY KEY,
            type TEXT NOT NULL,
            subtype TEXT,
            transaction_id TEXT,
            received_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX notifications_by_transaction ON notifications(transaction_id)",
        """
        CREATE TABLE redemption_attempts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            transaction_id TEXT NOT NULL,
            app_account_token TEXT,
            client TEXT NOT NULL,
            at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX redemption_attempts_by_transaction ON redemption_attempts(transaction_id, at)",
        """
        CREATE TABLE audit_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            transaction_id TEXT NOT NULL,
            at INTEGER NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL
        )
        """,
        "CREATE INDEX audit_events_by_transaction ON audit_events(transaction_id, id)",
    ]
}

extension SQLiteLedger {
    /// Every bundle a redeem offered per transaction and content (full or delta), which a finish is judged
    /// against, filled from the deliveries recorded before it existed; and the signedDate of the latest
    /// revocation fact per transaction.
    static let schemaV2Offers: [String] = [
        """
        CREATE TABLE offers (
            transaction_id TEXT NOT NULL,
            content_id TEXT NOT NULL,
            version TEXT NOT NULL,
            digest TEXT NOT NULL,
            first_offered_at INTEGER NOT NULL,
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
        "ALTER TABLE transactions ADD COLUMN last_fact_signed_ms INTEGER",
    ]
}

extension SQLiteLedger {
    /// Resumable uploads (tus): one row per upload; its bytes are on disk, `upload_offset` of them durable.
    /// `length` is NULL while the client defers it.
    static let schemaV4Uploads: [String] = [
        """
        CREATE TABLE uploads (
            id TEXT NOT NULL PRIMARY KEY,
            publisher TEXT NOT NULL,
            length INTEGER CHECK (length IS NULL OR length >= 0),
            upload_offset INTEGER NOT NULL DEFAULT 0 CHECK (upload_offset >= 0),
            metadata TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            CHECK (length IS NULL OR upload_offset <= length)
        )
        """,
        "CREATE INDEX uploads_by_expiry ON uploads(expires_at)",
    ]
}

extension SQLiteLedger {
    /// The product's type when a transaction was first recorded: the type it is judged by for good. Rows recorded
    /// before stay NULL, judged by the catalog's type.
    static let schemaV7TransactionType: [String] = [
        "ALTER TABLE transactions ADD COLUMN product_type TEXT"
    ]
}

extension SQLiteLedger {
    /// The schema versions applied to this file, oldest first.
    package func appliedMigrations() async throws(LedgerError) -> [String] {
        do {
            return try await pool.read { db in try Self.migrator.appliedMigrations(db) }
        } catch {
            throw Self.ledgerError(error, while: "reading applied migrations")
        }
    }
}
