extension SQLLedger {
    package func acquireLease(_ name: String, owner: String, now: Int64, seconds: Int64) async throws(LedgerError) -> Bool {
        let (expiresAt, overflow) = now.addingReportingOverflow(max(1, seconds))
        let until = overflow ? Int64.max : expiresAt
        return try await transaction(.write, "taking lease \(name)") { session in
            // One statement on both engines: the row is written when the lease is new, expired or the owner's.
            try await session.execute(
                """
                INSERT INTO leases (name, owner, expires_at) VALUES (\(name), \(owner), \(until))
                ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
                WHERE leases.owner = excluded.owner OR leases.expires_at <= \(now)
                """)
            let holder = try await session.row("SELECT owner FROM leases WHERE name = \(name)")
            return try holder?.text(0) == owner
        }
    }

    package func releaseLease(_ name: String, owner: String) async throws(LedgerError) {
        try await transaction(.write, "giving up lease \(name)") { session in
            try await session.execute("UPDATE leases SET expires_at = 0 WHERE name = \(name) AND owner = \(owner)")
        }
    }
}
