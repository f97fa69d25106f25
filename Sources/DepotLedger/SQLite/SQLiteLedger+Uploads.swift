import GRDB

extension SQLiteLedger {
    package func createUpload(_ upload: UploadRecord) async throws(LedgerError) {
        try await write("recording upload \(upload.id)") { db in
            try db.execute(
                sql: """
                    INSERT INTO uploads (id, publisher, length, upload_offset, metadata, created_at, expires_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    upload.id, upload.publisher, upload.length, upload.offset, upload.metadata, upload.createdAt,
                    upload.expiresAt, upload.createdAt,
                ])
        }
    }

    package func upload(id: String) async throws(LedgerError) -> UploadRecord? {
        try await read("reading upload \(id)") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id, publisher, length, upload_offset, metadata, created_at, expires_at
                    FROM uploads WHERE id = ?
                    """,
                arguments: [id]
            ).map { row in
                UploadRecord(
                    id: try row.decode(atIndex: 0), publisher: try row.decode(atIndex: 1), length: try row.decode(atIndex: 2),
                    offset: try row.decode(atIndex: 3), metadata: try row.decode(atIndex: 4),
                    createdAt: try row.decode(atIndex: 5), expiresAt: try row.decode(atIndex: 6))
            }
        }
    }

    package func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await write("advancing upload \(id)") { db in
            try db.execute(
                sql: """
                    UPDATE uploads SET upload_offset = ?, length = COALESCE(length, ?), expires_at = ?, updated_at = ?
                    WHERE id = ? AND upload_offset = ? AND (? IS NULL OR length IS NULL OR length = ?)
                      AND COALESCE(length, ?, ?) >= ?
                    """,
                arguments: [to, length, expiresAt, now, id, from, length, length, length, to, to])
            return db.changesCount == 1
        }
    }

    package func deleteUpload(id: String) async throws(LedgerError) -> Bool {
        try await write("deleting upload \(id)") { db in
            try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    package func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String] {
        try await read("listing expired uploads") { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM uploads WHERE expires_at <= ? ORDER BY expires_at, id LIMIT ?",
                arguments: [now, limit])
        }
    }
}
