import PostgresNIO

extension PostgresLedger {
    package func lastAttempt(transactionId: String, before: Int64) async throws(LedgerError) -> Int64? {
        let rows = try await query(
            "reading the last attempt on \(transactionId)",
            "SELECT MAX(at) FROM redemption_attempts WHERE transaction_id = \(transactionId) AND at < \(before)")
        return try Self.decoding("reading the last attempt on \(transactionId)") {
            try rows.first?.decode(Int64?.self) ?? nil
        }
    }

    package func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int, offset: Int, limit: Int
    ) async throws(LedgerError) -> [IrregularTransaction] {
        let tokens = Int64(maxAccountTokens)
        let clients = Int64(maxClientAddresses)
        let rows = try await query(
            "listing irregular activity",
            """
            SELECT transaction_id, COUNT(DISTINCT app_account_token), COUNT(DISTINCT client), MAX(at)
            FROM redemption_attempts WHERE at >= \(since)
            GROUP BY transaction_id
            HAVING COUNT(DISTINCT app_account_token) > \(tokens) OR COUNT(DISTINCT client) > \(clients)
            ORDER BY COUNT(DISTINCT app_account_token) + COUNT(DISTINCT client) DESC, transaction_id COLLATE "C"
            LIMIT \(Int64(clamping: limit)) OFFSET \(Int64(clamping: offset))
            """)
        return try Self.decoding("listing irregular activity") {
            try rows.map { row in
                let (id, tokenCount, clientCount, last) = try row.decode((String, Int64, Int64, Int64).self)
                return IrregularTransaction(
                    transactionId: id,
                    activity: RedemptionActivity(appAccountTokens: Int(tokenCount), clientAddresses: Int(clientCount)),
                    lastAttemptAt: last)
            }
        }
    }
}
