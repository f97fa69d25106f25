import DepotCore

/// The outbox table, the same for both engines but for the integer and identity column types.
///
/// One row per call to the App Store Server API: at most one job of a kind per transaction (a repeated finish
/// enqueues nothing more). `next_attempt_at`, `lease_expires_at`, `created_at`, `updated_at` are seconds since
/// 1970; a pending job with a lease is being sent, and is free again once `lease_expires_at` has passed.
enum StoreOutboxSchema {
    /// SQLite: `v6-apple-outbox`; PostgreSQL: version 6.
    static func statements(integer: String, identity: String) -> [String] {
        [
            """
            CREATE TABLE apple_outbox (
                id \(identity),
                kind TEXT NOT NULL CHECK (kind IN ('finish', 'consumption')),
                transaction_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
                attempts \(integer) NOT NULL DEFAULT 0,
                next_attempt_at \(integer) NOT NULL,
                lease_owner TEXT,
                lease_expires_at \(integer),
                last_error TEXT,
                created_at \(integer) NOT NULL,
                updated_at \(integer) NOT NULL,
                UNIQUE (kind, transaction_id)
            )
            """,
            "CREATE INDEX apple_outbox_due ON apple_outbox(next_attempt_at) WHERE state = 'pending'",
            "CREATE INDEX apple_outbox_by_transaction ON apple_outbox(transaction_id)",
            "CREATE INDEX apple_outbox_unsettled ON apple_outbox(id) WHERE state <> 'done'",
            // The customer's consent to share consumption data (Send Consumption Information requires it).
            """
            CREATE TABLE apple_consents (
                transaction_id TEXT NOT NULL PRIMARY KEY,
                consented_at \(integer) NOT NULL
            )
            """,
        ]
    }

    /// The columns `StoreJob` is read from, in its initialiser's order.
    static let columns = """
        id, kind, transaction_id, environment, state, attempts, next_attempt_at, lease_owner, lease_expires_at,
        last_error, created_at, updated_at
        """

    /// The audit detail when a consumption request cannot be answered for want of consent.
    static let noConsent =
        "no consumption data sent: the customer's consent is not recorded (POST /v1/transactions/{id}/consent)"

    /// An audit trail entry for an outbox event: `apple-finish-sent` and the like; for a Google Play purchase,
    /// `google-play-finish-sent` (its acknowledgement or consumption).
    static func auditEvent(_ kind: StoreJob.Kind, _ what: String, store: PurchaseStore = .appStore) -> String {
        switch store {
        case .appStore: "apple-\(kind.rawValue)-\(what)"
        case .googlePlay: "google-play-\(kind.rawValue)-\(what)"
        }
    }

    /// The API a store's outbox jobs are sent to, for audit details.
    static func api(_ store: PurchaseStore) -> String {
        switch store {
        case .appStore: "App Store Server API"
        case .googlePlay: "Google Play Developer API"
        }
    }
}
