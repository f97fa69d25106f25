import Crypto

/// One HMAC key that signs or checks grants, named by a key id carried inside each grant.
package struct GrantKey: Sendable {
    /// The key id: 1 to 64 characters of `A-Z a-z 0-9 _ -`.
    package let id: String
    let key: SymmetricKey
    /// HMAC-SHA256 under ``key`` with its padded key blocks already hashed: each MAC under this key continues a copy
    /// of it (``KeyedMAC``) instead of setting the key up again.
    let mac: KeyedMAC
    /// The keys `TransactionSeal` derives from this one (its synthetic IV's and its keystream's), derived once here
    /// rather than at every seal and open.
    let sealKeys: TransactionSeal.Keys

    /// Creates a key from its id and secret bytes (at least 32 bytes).
    package init(id: String, secret: [UInt8]) throws(GrantError) {
        guard GrantToken.isTokenSafe(Substring(id), allowEmpty: false) else {
            throw GrantError(.badKey, "grant key id \"\(id)\" must be 1-64 characters of A-Z a-z 0-9 _ -")
        }
        guard secret.count >= 32 else {
            throw GrantError(.badKey, "grant key \"\(id)\" must hold at least 32 bytes of secret")
        }
        self.id = id
        self.key = SymmetricKey(data: secret)
        self.mac = KeyedMAC(key: key)
        self.sealKeys = TransactionSeal.Keys(deriving: key)
    }
}
