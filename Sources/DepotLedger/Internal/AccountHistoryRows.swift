/// The index a restore by account reads the ledger through: transactions by their store-signed app account token
/// (as the store wrote it, so compared in lowercase), newest purchase first. The same statement in both engines
/// (SQLite `v17-transactions-by-account`, PostgreSQL 17).
enum AccountHistoryRows {
    /// Adds the index.
    static let schema: [String] = [
        "CREATE INDEX transactions_by_account ON transactions(lower(app_account_token), purchase_date_ms)"
    ]
}
