import GRDB

extension SQLiteLedger {
    package func appleJobCounts() async throws(LedgerError) -> [AppleJob.State: Int] {
        let rows = try await read("counting App Store outbox jobs") { db in
            try Row.fetchAll(db, sql: "SELECT state, COUNT(*) FROM apple_outbox GROUP BY state").map { row in
                (row[0] as String, row[1] as Int)
            }
        }
        return AppleJob.State.counts(rows)
    }
}
