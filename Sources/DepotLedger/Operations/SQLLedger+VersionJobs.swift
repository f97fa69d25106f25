extension SQLLedger {
    package func createVersionJob(_ job: VersionJob, staleBefore: Int64) async throws(LedgerError) -> VersionJobCreation {
        try await transaction(.write, "recording version job \(job.id)") { session in
            let key = VersionJobRows.contentKey(job.contentId)
            // Serialises creations for one product × content × version across instances (no row to lock yet).
            try await session.lock("version-job\n\(job.productId)\n\(key)\n\(job.version)")
            let live = try await session.row(
                """
                SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs
                WHERE product_id = \(job.productId) AND version = \(job.version) AND content_key = \(key)
                  AND state NOT IN ('staged', 'failed') AND updated_at >= \(staleBefore)
                ORDER BY created_at DESC LIMIT 1
                """)
            if let live { return .inProgress(try VersionJobRows.job(live)) }
            try await session.execute(
                "DELETE FROM version_jobs WHERE product_id = \(job.productId) AND version = \(job.version) AND content_key = \(key)")
            try await session.execute(
                """
                INSERT INTO version_jobs (\(unescaped: VersionJobRows.columns))
                VALUES (\(job.id), \(job.productId), \(job.version), \(key), \(job.uploadId), \(job.publisher),
                        \(job.sha256), \(job.publishedAt), \(job.state.rawValue), \(job.failureReason), \(job.createdAt),
                        \(job.updatedAt))
                """)
            return .created
        }
    }

    package func updateVersionJob(
        id: String, state: VersionJobState, failureReason: String?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await transaction(.write, "updating version job \(id)") { session in
            try await session.execute(
                """
                UPDATE version_jobs SET state = \(state.rawValue), failure_reason = \(failureReason), updated_at = \(now)
                WHERE id = \(id) AND state NOT IN ('staged', 'failed')
                """) == 1
        }
    }

    package func versionJob(id: String) async throws(LedgerError) -> VersionJob? {
        try await transaction(.read, "reading version job \(id)") { session in
            try await session.row("SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs WHERE id = \(id)")
                .map(VersionJobRows.job)
        }
    }

    package func versionJobs(productId: String) async throws(LedgerError) -> [VersionJob] {
        try await transaction(.read, "listing version jobs of \(productId)") { session in
            try await session.rows(
                """
                SELECT \(unescaped: VersionJobRows.columns) FROM version_jobs WHERE product_id = \(productId)
                ORDER BY created_at DESC, id\(.binaryCollation)
                """
            ).map(VersionJobRows.job)
        }
    }

    package func failStaleVersionJobs(before: Int64, reason: String, now: Int64) async throws(LedgerError) -> Int {
        try await transaction(.write, "failing stale version jobs") { session in
            try await session.execute(
                """
                UPDATE version_jobs SET state = 'failed', failure_reason = \(reason), updated_at = \(now)
                WHERE state NOT IN ('staged', 'failed') AND updated_at < \(before)
                """)
        }
    }
}
