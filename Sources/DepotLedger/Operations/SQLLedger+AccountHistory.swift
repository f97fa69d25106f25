import DepotCore

extension SQLLedger {
    package func transactions(appAccountToken: String, limit: Int) async throws(LedgerError) -> [LedgerTransaction] {
        // `lower(...)` as the index `transactions_by_account` has it: tokens are recorded as the store signed them.
        let token = appAccountToken.lowercased()
        return try await transaction(.read, "reading the transactions of an account") { session in
            try await session.rows(
                """
                SELECT \(unescaped: TransactionRows.columns) FROM transactions
                WHERE lower(app_account_token) = \(token)
                ORDER BY purchase_date_ms DESC, id\(.binaryCollation) DESC LIMIT \(Int64(clamping: max(0, limit)))
                """
            ).map { try TransactionRows.transaction($0) }
        }
    }

    package func recordAttempt(
        transactionId id: String, appAccountToken: String?, client: String, activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption? {
        try await transaction(.write, "recording an attempt of \(id)") { session in
            guard let stored = try await TransactionRows.transaction(session, id: id) else { return nil }
            // The previous attempt is read before this one is recorded, as a redemption reads it.
            let previous = try await session.row(
                "SELECT MAX(at) FROM redemption_attempts WHERE transaction_id = \(id)"
            )?.optionalInteger(0)
            try await session.execute(
                """
                INSERT INTO redemption_attempts (transaction_id, app_account_token, client, at)
                VALUES (\(id), \(appAccountToken), \(client), \(now))
                """)
            let activity = try await session.row(
                """
                SELECT COUNT(DISTINCT app_account_token), COUNT(DISTINCT client) FROM redemption_attempts
                WHERE transaction_id = \(id) AND at >= \(activitySince)
                """)
            return RecordedRedemption(
                transaction: stored, previousAttempt: previous,
                activity: RedemptionActivity(
                    appAccountTokens: try activity?.int(0) ?? 0, clientAddresses: try activity?.int(1) ?? 0))
        }
    }
}
