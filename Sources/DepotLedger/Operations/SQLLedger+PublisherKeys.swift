import DepotCore

extension SQLLedger {
    package func createPublisherKey(_ key: PublisherKeyRecord) async throws(LedgerError) {
        try await transaction(.write, "recording publisher key \(key.id)") { session in
            try await session.execute(
                """
                INSERT INTO publisher_keys (id, publisher, product_prefixes, key_sha256, created_at, revoked_at)
                VALUES (\(key.id), \(key.publisher), \(key.productPrefixes.joined(separator: "\n")),
                    \(Hex.lowercase(key.keyDigest)), \(key.createdAt), \(key.revokedAt))
                """)
        }
    }

    package func publisherKeys() async throws(LedgerError) -> [PublisherKeyRecord] {
        try await transaction(.read, "listing publisher keys") { session in
            try await session.rows("SELECT \(unescaped: PublisherKeyRows.columns) FROM publisher_keys ORDER BY created_at, id")
                .map(PublisherKeyRows.key)
        }
    }

    package func publisherKey(digest: [UInt8]) async throws(LedgerError) -> PublisherKeyRecord? {
        try await transaction(.read, "reading a publisher key") { session in
            try await session.row(
                "SELECT \(unescaped: PublisherKeyRows.columns) FROM publisher_keys WHERE key_sha256 = \(Hex.lowercase(digest))"
            ).map(PublisherKeyRows.key)
        }
    }

    package func revokePublisherKey(id: String, now: Int64) async throws(LedgerError) -> KeyRevocationOutcome {
        try await transaction(.write, "revoking publisher key \(id)") { session in
            guard let row = try await session.row("SELECT revoked_at FROM publisher_keys WHERE id = \(id)\(.forUpdate)")
            else { return .unknownKey }
            guard try row.optionalInteger(0) == nil else { return .alreadyRevoked }
            try await session.execute("UPDATE publisher_keys SET revoked_at = \(now) WHERE id = \(id)")
            return .revoked
        }
    }
}

/// Reading publisher-key rows.
enum PublisherKeyRows {
    /// The selected columns, in the order `key(_:)` reads them.
    static let columns = "id, publisher, product_prefixes, key_sha256, created_at, revoked_at"

    /// A key from its columns.
    static func key(_ row: SQLRow) throws -> PublisherKeyRecord {
        guard let digest = Hex.bytes(try row.text(3)) else {
            throw LedgerError.corrupt("a publisher key's digest is not hex")
        }
        return PublisherKeyRecord(
            id: try row.text(0), publisher: try row.text(1), productPrefixes: CatalogRows.prefixes(try row.text(2)),
            keyDigest: digest, createdAt: try row.integer(4), revokedAt: try row.optionalInteger(5))
    }
}
