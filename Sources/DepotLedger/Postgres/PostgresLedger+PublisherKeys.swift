import PostgresNIO

extension PostgresLedger {
    package func createPublisherKey(_ key: PublisherKeyRecord) async throws(LedgerError) {
        try await transact("recording publisher key \(key.id)") { c, logger in
            _ = try await c.query(
                """
                INSERT INTO publisher_keys (id, publisher, product_prefixes, key_sha256, created_at, revoked_at)
                VALUES (\(key.id), \(key.publisher), \(key.productPrefixes.joined(separator: "\n")),
                    \(CatalogRows.hex(key.keyDigest)), \(key.createdAt), \(key.revokedAt))
                """, logger: logger)
        }
    }

    package func publisherKeys() async throws(LedgerError) -> [PublisherKeyRecord] {
        let rows = try await query(
            "listing publisher keys",
            "SELECT id, publisher, product_prefixes, key_sha256, created_at, revoked_at FROM publisher_keys ORDER BY created_at, id")
        return try Self.decoding("listing publisher keys") { try rows.map(Self.decodeKey) }
    }

    package func publisherKey(digest: [UInt8]) async throws(LedgerError) -> PublisherKeyRecord? {
        let rows = try await query(
            "reading a publisher key",
            """
            SELECT id, publisher, product_prefixes, key_sha256, created_at, revoked_at FROM publisher_keys
            WHERE key_sha256 = \(CatalogRows.hex(digest))
            """)
        return try Self.decoding("reading a publisher key") { try rows.first.map(Self.decodeKey) }
    }

    package func revokePublisherKey(id: String, now: Int64) async throws(LedgerError) -> KeyRevocationOutcome {
        try await transact("revoking publisher key \(id)") { c, logger in
            let rows = try await c.query("SELECT revoked_at FROM publisher_keys WHERE id = \(id) FOR UPDATE", logger: logger).collect()
            guard let row = rows.first else { return .unknownKey }
            guard try row.decode(Int64?.self) == nil else { return .alreadyRevoked }
            try await c.query("UPDATE publisher_keys SET revoked_at = \(now) WHERE id = \(id)", logger: logger)
            return .revoked
        }
    }

    static func decodeKey(_ row: PostgresRow) throws -> PublisherKeyRecord {
        let (id, publisher, prefixes, hex, createdAt, revokedAt) = try row.decode((String, String, String, String, Int64, Int64?).self)
        guard let digest = CatalogRows.bytes(hex: hex) else { throw LedgerError.corrupt("a publisher key's digest is not hex") }
        return PublisherKeyRecord(
            id: id, publisher: publisher, productPrefixes: CatalogRows.prefixes(prefixes), keyDigest: digest,
            createdAt: createdAt, revokedAt: revokedAt)
    }
}
