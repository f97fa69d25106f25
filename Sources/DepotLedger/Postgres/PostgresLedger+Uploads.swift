import PostgresNIO

extension PostgresLedger {
    package func createUpload(_ upload: UploadRecord) async throws(LedgerError) {
        _ = try await transact("recording upload \(upload.id)") { connection, logger in
            try await connection.query(
                """
                INSERT INTO uploads (id, publisher, length, upload_offset, metadata, created_at, expires_at, updated_at)
                VALUES (\(upload.id), \(upload.publisher), \(upload.length), \(upload.offset), \(upload.metadata),
                        \(upload.createdAt), \(upload.expiresAt), \(upload.createdAt))
                """, logger: logger)
        }
    }

    package func upload(id: String) async throws(LedgerError) -> UploadRecord? {
        let rows = try await query(
            "reading upload \(id)",
            """
            SELECT id, publisher, length, upload_offset, metadata, created_at, expires_at FROM uploads WHERE id = \(id)
            """)
        return try Self.decoding("reading upload \(id)") {
            try rows.first.map { row in
                let (id, publisher, length, offset, metadata, createdAt, expiresAt) = try row.decode(
                    (String, String, Int64?, Int64, String, Int64, Int64).self)
                return UploadRecord(
                    id: id, publisher: publisher, length: length, offset: offset, metadata: metadata, createdAt: createdAt,
                    expiresAt: expiresAt)
            }
        }
    }

    package func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await transact("advancing upload \(id)") { connection, logger in
            let rows = try await connection.query(
                """
                UPDATE uploads SET upload_offset = \(to), length = COALESCE(length, \(length)::BIGINT),
                    expires_at = \(expiresAt), updated_at = \(now)
                WHERE id = \(id) AND upload_offset = \(from)
                  AND (\(length)::BIGINT IS NULL OR length IS NULL OR length = \(length)::BIGINT)
                  AND COALESCE(length, \(length)::BIGINT, \(to)) >= \(to)
                RETURNING id
                """, logger: logger
            ).collect()
            return rows.count == 1
        }
    }

    package func deleteUpload(id: String) async throws(LedgerError) -> Bool {
        try await transact("deleting upload \(id)") { connection, logger in
            let rows = try await connection.query("DELETE FROM uploads WHERE id = \(id) RETURNING id", logger: logger)
                .collect()
            return rows.count == 1
        }
    }

    package func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String] {
        let rows = try await query(
            "listing expired uploads",
            "SELECT id FROM uploads WHERE expires_at <= \(now) ORDER BY expires_at, id LIMIT \(Int64(limit))")
        return try Self.decoding("listing expired uploads") { try rows.map { try $0.decode(String.self) } }
    }
}
