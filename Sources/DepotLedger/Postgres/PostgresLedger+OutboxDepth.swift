import PostgresNIO

extension PostgresLedger {
    package func appleJobCounts() async throws(LedgerError) -> [AppleJob.State: Int] {
        let rows = try await query(
            "counting App Store outbox jobs", "SELECT state, COUNT(*) FROM apple_outbox GROUP BY state")
        let counts = try Self.decoding("counting App Store outbox jobs") {
            try rows.map { row in
                let (state, count) = try row.decode((String, Int64).self)
                return (state, Int(count))
            }
        }
        return AppleJob.State.counts(counts)
    }
}
