import DepotCore

extension SQLLedger {
    package func startRental(transactionId: String, reason: String, now: Int64) async throws(LedgerError) -> Bool {
        try await transaction(.write, "starting the rental \(transactionId)") { session in
            let started = try await session.execute(
                """
                UPDATE transactions SET rental_started_at = \(now)
                WHERE id = \(transactionId) AND rental_period_s IS NOT NULL AND rental_started_at IS NULL
                """)
            guard started > 0 else { return false }
            try await TransactionRows.audit(session, transactionId, now, AuditEventKind.rentalStarted, reason)
            return true
        }
    }
}
