import GRDB

extension SQLiteLedger {
    package func createPublisherKey(_ key: PublisherKeyRecord) async throws(LedgerError) {
        try await write("recording publisher key \(key.id)") { db in
            try db.execute(
                sql: """
                    INSERT INTO publisher_keys (id, publisher, product_prefixes, key_sha256, created_at, revoked_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.id, key.publisher, key.productPrefixes.joined(separator: "\n"), CatalogRows.hex(key.keyDigest),
                    key.createdAt, key.revokedAt,
                ])
        }
    }

    package func publisherKeys() async throws(LedgerError) -> [PublisherKeyRecord] {
        try await read("listing publisher keys") { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.keyColumns) FROM publisher_keys ORDER BY created_at, id").map(Self.decodeKey)
        }
    }

    package func publisherKey(digest: [UInt8]) async throws(LedgerError) -> PublisherKeyRecord? {
        try await read("reading a publisher key") { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.keyColumns) FROM publisher_keys WHERE key_sha256 = ?",
                arguments: [CatalogRows.hex(digest)]
            ).map(Self.decodeKey)
        }
    }

    package func revokePublisherKey(id: String, now: Int64) async throws(LedgerError) -> KeyRevocationOutcome {
        try await write("revoking publisher key \(id)") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT revoked_at FROM publisher_keys WHERE id = ?", arguments: [id])
            else { return .unknownKey }
            let revokedAt: Int64? = try row.decode(atIndex: 0)
            guard revokedAt == nil else { return .alreadyRevoked }
            try db.execute(sql: "UPDATE publisher_keys SET revoked_at = ? WHERE id = ?", arguments: [now, id])
            return .revoked
        }
    }

    static let keyColumns = "id, publisher, product_prefixes, key_sha256, created_at, revoked_at"

    static func decodeKey(_ row: Row) throws -> PublisherKeyRecord {
        let hex: String = try row.decode(atIndex: 3)
        guard let digest = CatalogRows.bytes(hex: hex) else { throw LedgerError.corrupt("a publisher key's digest is not hex") }
        return PublisherKeyRecord(
            id: try row.decode(atIndex: 0), publisher: try row.decode(atIndex: 1),
            productPrefixes: CatalogRows.prefixes(try row.decode(atIndex: 2)), keyDigest: digest,
            createdAt: try row.decode(atIndex: 4), revokedAt: try row.decode(atIndex: 5))
    }
}
