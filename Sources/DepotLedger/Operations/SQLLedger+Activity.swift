extension SQLLedger {
    package func recordAttempt(
        transactionId: String, appAccountToken: String?, client: String, now: Int64
    )
        async throws(LedgerError)
    {
        try await transaction(.write, "recording an attempt on \(transactionId)") { session in
            try await session.execute(
                """
                INSERT INTO redemption_attempts (transaction_id, app_account_token, client, at)
                VALUES (\(transactionId), \(appAccountToken), \(client), \(now))
                """)
        }
    }

    package func activity(transactionId: String, since: Int64) async throws(LedgerError) -> RedemptionActivity {
        try await transaction(.read, "reading the activity of \(transactionId)") { session in
            let row = try await session.row(
                """
                SELECT COUNT(DISTINCT app_account_token), COUNT(DISTINCT client) FROM redemption_attempts
                WHERE transaction_id = \(transactionId) AND at >= \(since)
                """)
            guard let row else { return RedemptionActivity(appAccountTokens: 0, clientAddresses: 0) }
            return RedemptionActivity(appAccountTokens: try row.int(0), clientAddresses: try row.int(1))
        }
    }

    package func lastAttempt(transactionId: String, before: Int64) async throws(LedgerError) -> Int64? {
        try await transaction(.read, "reading the last attempt on \(transactionId)") { session in
            try await session.row(
                "SELECT MAX(at) FROM redemption_attempts WHERE transaction_id = \(transactionId) AND at < \(before)"
            )?.optionalInteger(0)
        }
    }

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
