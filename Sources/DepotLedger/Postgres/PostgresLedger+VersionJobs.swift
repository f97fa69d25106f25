import PostgresNIO

extension PostgresLedger {
    package func createVersionJob(_ job: VersionJob, staleBefore: Int64) async throws(LedgerError) -> VersionJobCreation {
        try await transact("recording version job \(job.id)") { connection, logger in
            let key = VersionJobRows.contentKey(job.contentId)
            // Serialises creations for one product × content × version across instances (no row to lock yet).
            let lockKey = "version-job\n\(job.productId)\n\(key)\n\(job.version)"
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockKey)))", logger: logger)
            let live = try await connection.query(
                """
                SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs
                WHERE product_id = \(job.productId) AND version = \(job.version) AND content_key = \(key)
                  AND state NOT IN ('staged', 'failed') AND updated_at >= \(staleBefore)
                ORDER BY created_at DESC LIMIT 1
                """, logger: logger
            ).collect()
            if let row = live.first { return .inProgress(try Self.versionJob(row)) }
            try await connection.query(
                """
                DELETE FROM version_jobs WHERE product_id = \(job.productId) AND version = \(job.version)
                  AND content_key = \(key)
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO version_jobs (\(unescaped: VersionJobRows.columns))
                VALUES (\(job.id), \(job.productId), \(job.version), \(key), \(job.uploadId), \(job.publisher),
                        \(job.sha256), \(job.publishedAt), \(job.state.rawValue), \(job.failureReason), \(job.createdAt),
                        \(job.updatedAt))
                """, logger: logger)
            return .created
        }
    }

    package func updateVersionJob(
        id: String, state: VersionJobState, failureReason: String?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await transact("updating version job \(id)") { connection, logger in
            let rows = try await connection.query(
                """
                UPDATE version_jobs SET state = \(state.rawValue), failure_reason = \(failureReason), updated_at = \(now)
                WHERE id = \(id) AND state NOT IN ('staged', 'failed') RETURNING id
                """, logger: logger
            ).collect()
            return rows.count == 1
        }
    }

    package func versionJob(id: String) async throws(LedgerError) -> VersionJob? {
        let rows = try await query(
            "reading version job \(id)",
            "SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs WHERE id = \(id)")
        return try Self.decoding("reading version job \(id)") { try rows.first.map(Self.versionJob) }
    }

    package func versionJobs(productId: String) async throws(LedgerError) -> [VersionJob] {
        let rows = try await query(
            "listing version jobs of \(productId)",
            """
            SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs WHERE product_id = \(productId)
            ORDER BY created_at DESC, id COLLATE "C"
            """)
        return try Self.decoding("listing version jobs of \(productId)") { try rows.map(Self.versionJob) }
    }

    package func failStaleVersionJobs(before: Int64, reason: String, now: Int64) async throws(LedgerError) -> Int {
        try await transact("failing stale version jobs") { connection, logger in
            try await connection.query(
                """
                UPDATE version_jobs SET state = 'failed', failure_reason = \(reason), updated_at = \(now)
                WHERE state NOT IN ('staged', 'failed') AND updated_at < \(before) RETURNING id
                """, logger: logger
            ).collect().count
        }
    }

    private static func versionJob(_ row: PostgresRow) throws -> VersionJob {
        try VersionJobRows.job(
            row.decode((String, String, String, String, String, String, String, Int64?, String, String?, Int64, Int64).self))
    }
}
