/// A publisher API key as the ledger holds it: never the key itself, only its SHA-256.
package struct PublisherKeyRecord: Sendable, Equatable {
    /// A short public identifier (`depot keys list`, `depot keys revoke ID`).
    package var id: String
    /// Who holds the key.
    package var publisher: String
    /// Product-id prefixes the key may act on; empty means every product.
    package var productPrefixes: [String]
    /// SHA-256 of the key's text.
    package var keyDigest: [UInt8]
    /// When it was created (seconds since 1970).
    package var createdAt: Int64
    /// When it was revoked, if it was.
    package var revokedAt: Int64?

    /// Creates a record.
    package init(
        id: String, publisher: String, productPrefixes: [String], keyDigest: [UInt8], createdAt: Int64, revokedAt: Int64? = nil
    ) {
        self.id = id
        self.publisher = publisher
        self.productPrefixes = productPrefixes
        self.keyDigest = keyDigest
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// What revoking a key did.
package enum KeyRevocationOutcome: Sendable, Equatable {
    /// Revoked now.
    case revoked
    /// It already was revoked; nothing changed.
    case alreadyRevoked
    /// No key has this id.
    case unknownKey
}
