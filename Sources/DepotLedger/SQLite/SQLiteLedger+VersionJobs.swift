import GRDB

extension SQLiteLedger {
    package func createVersionJob(_ job: VersionJob, staleBefore: Int64) async throws(LedgerError) -> VersionJobCreation {
        try await write("recording version job \(job.id)") { db in
            let key = VersionJobRows.contentKey(job.contentId)
            let live = try Row.fetchOne(
                db,
                sql: """
                    SELECT \(VersionJobRows.columns) FROM version_jobs
                    WHERE product_id = ? AND version = ? AND content_key = ?
                      AND state NOT IN ('staged', 'failed') AND updated_at >= ?
                    ORDER BY created_at DESC LIMIT 1
                    """,
                arguments: [job.productId, job.version, key, staleBefore])
            if let live { return .inProgress(try Self.versionJob(live)) }
            try db.execute(
                sql: "DELETE FROM version_jobs WHERE product_id = ? AND version = ? AND content_key = ?",
                arguments: [job.productId, job.version, key])
            try db.execute(
                sql: """
                    INSERT INTO version_jobs (\(VersionJobRows.columns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.id, job.productId, job.version, key, job.uploadId, job.publisher, job.sha256, job.publishedAt,
                    job.state.rawValue, job.failureReason, job.createdAt, job.updatedAt,
                ])
            return .created
        }
    }

    package func updateVersionJob(
        id: String, state: VersionJobState, failureReason: String?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await write("updating version job \(id)") { db in
            try db.execute(
                sql: """
                    UPDATE version_jobs SET state = ?, failure_reason = ?, updated_at = ?
                    WHERE id = ? AND state NOT IN ('staged', 'failed')
                    """,
                arguments: [state.rawValue, failureReason, now, id])
            return db.changesCount == 1
        }
    }

    package func versionJob(id: String) async throws(LedgerError) -> VersionJob? {
        try await read("reading version job \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT \(VersionJobRows.columns) FROM version_jobs WHERE id = ?", arguments: [id])
                .map(Self.versionJob)
        }
    }

    package func versionJobs(productId: String) async throws(LedgerError) -> [VersionJob] {
        try await read("listing version jobs of \(productId)") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(VersionJobRows.columns) FROM version_jobs WHERE product_id = ? ORDER BY created_at DESC, id",
                arguments: [productId]
            ).map(Self.versionJob)
        }
    }

    package func failStaleVersionJobs(before: Int64, reason: String, now: Int64) async throws(LedgerError) -> Int {
        try await write("failing stale version jobs") { db in
            try db.execute(
                sql: """
                    UPDATE version_jobs SET state = 'failed', failure_reason = ?, updated_at = ?
                    WHERE state NOT IN ('staged', 'failed') AND updated_at < ?
                    """,
                arguments: [reason, now, before])
            return db.changesCount
        }
    }

    private static func versionJob(_ row: Row) throws -> VersionJob {
        try VersionJobRows.job(
            (
                row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11]
            ))
    }
}
