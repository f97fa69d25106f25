extension SQLLedger {
    package func createUpload(_ upload: UploadRecord) async throws(LedgerError) {
        try await transaction(.write, "recording upload \(upload.id)") { session in
            try await session.execute(UploadRows.insert(upload))
        }
    }

    package func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError) -> UploadQuotaOutcome {
        try await transaction(.write, "recording upload \(upload.id) within its publisher's quota") { session in
            // One publisher's creations take turns, on every instance (SQLite's write transaction excludes every
            // other writer already): none counts or inserts between the two statements.
            try await session.lock("depot.uploads:" + upload.publisher)
            // A complete upload holds its bytes until a version job consumed it (staged a version from it) or it
            // expires: counted until then, or one key could keep finishing uploads past the quota.
            // Summed here, saturating, rather than by SQLite's SUM, which fails on an overflow.
            let lengths = try await session.rows(
                """
                SELECT COALESCE(length, \(quota.deferredBytes)) FROM uploads
                WHERE publisher = \(upload.publisher) AND expires_at > \(now)
                  AND (length IS NULL OR upload_offset < length OR NOT EXISTS (
                      SELECT 1 FROM version_jobs WHERE version_jobs.upload_id = uploads.id AND version_jobs.state = 'staged'))
                """
            ).map { try $0.integer(0) }
            let held = lengths.reduce(Int64(0)) { sum, length in
                let (total, overflow) = sum.addingReportingOverflow(length)
                return overflow ? .max : total
            }
            let outcome = quota.admits(count: lengths.count, held: held, bytes: upload.length ?? quota.deferredBytes)
            guard outcome == .created else { return outcome }
            try await session.execute(UploadRows.insert(upload))
            return .created
        }
    }

    package func upload(id: String) async throws(LedgerError) -> UploadRecord? {
        try await transaction(.read, "reading upload \(id)") { session in
            try await session.row(
                "SELECT id, publisher, length, upload_offset, metadata, created_at, expires_at FROM uploads WHERE id = \(id)"
            ).map { row in
                UploadRecord(
                    id: try row.text(0), publisher: try row.text(1), length: try row.optionalInteger(2),
                    offset: try row.integer(3), metadata: try row.text(4), createdAt: try row.integer(5),
                    expiresAt: try row.integer(6))
            }
        }
    }

    package func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64, part: String?
    )
        async throws(LedgerError) -> Bool
    {
        try await transaction(.write, "advancing upload \(id)") { session in
            let moved =
                try await session.execute(
                    """
                    UPDATE uploads SET upload_offset = \(to), length = COALESCE(length, CAST(\(length) AS BIGINT)),
                        expires_at = \(expiresAt), updated_at = \(now)
                    WHERE id = \(id) AND upload_offset = \(from)
                      AND (CAST(\(length) AS BIGINT) IS NULL OR length IS NULL OR length = CAST(\(length) AS BIGINT))
                      AND COALESCE(length, CAST(\(length) AS BIGINT), \(to)) >= \(to)
                    """) == 1
            if moved, let part {
                try await session.execute(
                    """
                    INSERT INTO upload_parts (upload_id, start_offset, end_offset, object_key)
                    VALUES (\(id), \(from), \(to), \(part))
                    """)
            }
            return moved
        }
    }

    package func uploadParts(id: String) async throws(LedgerError) -> [UploadPart] {
        try await transaction(.read, "reading the parts of upload \(id)") { session in
            try await session.rows(
                "SELECT start_offset, end_offset, object_key FROM upload_parts WHERE upload_id = \(id) ORDER BY start_offset"
            ).map { row in UploadPart(start: try row.integer(0), end: try row.integer(1), key: try row.text(2)) }
        }
    }

    package func deleteUpload(id: String) async throws(LedgerError) -> Bool {
        try await transaction(.write, "deleting upload \(id)") { session in
            try await session.execute("DELETE FROM upload_parts WHERE upload_id = \(id)")
            return try await session.execute("DELETE FROM uploads WHERE id = \(id)") == 1
        }
    }

    package func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String] {
        try await transaction(.read, "listing expired uploads") { session in
            try await session.rows("SELECT id FROM uploads WHERE expires_at <= \(now) ORDER BY expires_at, id LIMIT \(limit)")
                .map { try $0.text(0) }
        }
    }
}

/// Writing upload rows.
enum UploadRows {
    /// The insert of a new upload, updated when created.
    static func insert(_ upload: UploadRecord) -> SQL {
        """
        INSERT INTO uploads (id, publisher, length, upload_offset, metadata, created_at, expires_at, updated_at)
        VALUES (\(upload.id), \(upload.publisher), \(upload.length), \(upload.offset), \(upload.metadata),
                \(upload.createdAt), \(upload.expiresAt), \(upload.createdAt))
        """
    }
}
