extension SQLLedger {
    package func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int, offset: Int, limit: Int
    ) async throws(LedgerError) -> [IrregularTransaction] {
        try await transaction(.read, "listing irregular activity") { session in
            try await session.rows(
                """
                SELECT transaction_id, COUNT(DISTINCT app_account_token), COUNT(DISTINCT client), MAX(at)
                FROM redemption_attempts WHERE at >= \(since)
                GROUP BY transaction_id
                HAVING COUNT(DISTINCT app_account_token) > \(maxAccountTokens) OR COUNT(DISTINCT client) > \(maxClientAddresses)
                ORDER BY COUNT(DISTINCT app_account_token) + COUNT(DISTINCT client) DESC, transaction_id\(.binaryCollation)
                LIMIT \(Int64(clamping: limit)) OFFSET \(Int64(clamping: offset))
                """
            ).map { row in
                IrregularTransaction(
                    transactionId: try row.text(0),
                    activity: RedemptionActivity(appAccountTokens: try row.int(1), clientAddresses: try row.int(2)),
                    lastAttemptAt: try row.integer(3))
            }
        }
    }
}
