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
}
