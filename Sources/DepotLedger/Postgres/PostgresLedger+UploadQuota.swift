import PostgresNIO

extension PostgresLedger {
    package func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError) -> UploadQuotaOutcome {
        try await transact("recording upload \(upload.id) within its publisher's quota") { connection, logger in
            // One publisher's creations take turns (a lock held until the transaction ends), on every instance.
            let lockKey = "depot.uploads:" + upload.publisher
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockKey)))", logger: logger).collect()
            let rows = try await connection.query(
                """
                SELECT COUNT(*)::BIGINT,
                    LEAST(COALESCE(SUM(COALESCE(length, \(quota.deferredBytes))), 0), 9223372036854775807)::BIGINT
                FROM uploads
                WHERE publisher = \(upload.publisher) AND expires_at > \(now)
                  AND (length IS NULL OR upload_offset < length)
                """, logger: logger
            ).collect()
            var (count, held): (Int64, Int64) = (0, 0)
            if let row = rows.first { (count, held) = try row.decode((Int64, Int64).self) }
            let outcome = quota.admits(
                count: Int(clamping: count), held: held, bytes: upload.length ?? quota.deferredBytes)
            guard outcome == .created else { return outcome }
            try await connection.query(
                """
                INSERT INTO uploads (id, publisher, length, upload_offset, metadata, created_at, expires_at, updated_at)
                VALUES (\(upload.id), \(upload.publisher), \(upload.length), \(upload.offset), \(upload.metadata),
                        \(upload.createdAt), \(upload.expiresAt), \(upload.createdAt))
                """, logger: logger)
            return .created
        }
    }
}
