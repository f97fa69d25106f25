import GRDB

extension SQLiteLedger {
    package func lastAttempt(transactionId: String, before: Int64) async throws(LedgerError) -> Int64? {
        try await read("reading the last attempt on \(transactionId)") { db in
            try Int64.fetchOne(
                db, sql: "SELECT MAX(at) FROM redemption_attempts WHERE transaction_id = ? AND at < ?",
                arguments: [transactionId, before])
        }
    }

    package func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int, offset: Int, limit: Int
    ) async throws(LedgerError) -> [IrregularTransaction] {
        try await read("listing irregular activity") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT transaction_id, COUNT(DISTINCT app_account_token) AS tokens, COUNT(DISTINCT client) AS clients,
                           MAX(at) AS last
                    FROM redemption_attempts WHERE at >= ?
                    GROUP BY transaction_id
                    HAVING COUNT(DISTINCT app_account_token) > ? OR COUNT(DISTINCT client) > ?
                    ORDER BY tokens + clients DESC, transaction_id
                    LIMIT ? OFFSET ?
                    """,
                arguments: [since, maxAccountTokens, maxClientAddresses, Int64(clamping: limit), Int64(clamping: offset)])
            return try rows.map { row in
                IrregularTransaction(
                    transactionId: try row.decode(atIndex: 0),
                    activity: RedemptionActivity(appAccountTokens: try row.decode(atIndex: 1), clientAddresses: try row.decode(atIndex: 2)),
                    lastAttemptAt: try row.decode(atIndex: 3))
            }
        }
    }
}
