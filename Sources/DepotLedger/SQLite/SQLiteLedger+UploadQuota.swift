import GRDB

extension SQLiteLedger {
    package func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError) -> UploadQuotaOutcome {
        try await write("recording upload \(upload.id) within its publisher's quota") { db in
            // The write transaction is immediate: no other writer counts or inserts between the two statements.
            // Summed here, saturating, rather than by SQLite's SUM, which fails on an overflow.
            let lengths = try Int64.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(length, ?) FROM uploads
                    WHERE publisher = ? AND expires_at > ? AND (length IS NULL OR upload_offset < length)
                    """,
                arguments: [quota.deferredBytes, upload.publisher, now])
            let count = lengths.count
            let held = lengths.reduce(Int64(0)) { sum, length in
                let (total, overflow) = sum.addingReportingOverflow(length)
                return overflow ? .max : total
            }
            let outcome = quota.admits(count: count, held: held, bytes: upload.length ?? quota.deferredBytes)
            guard outcome == .created else { return outcome }
            try db.execute(
                sql: """
                    INSERT INTO uploads (id, publisher, length, upload_offset, metadata, created_at, expires_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    upload.id, upload.publisher, upload.length, upload.offset, upload.metadata, upload.createdAt,
                    upload.expiresAt, upload.createdAt,
                ])
            return .created
        }
    }
}
