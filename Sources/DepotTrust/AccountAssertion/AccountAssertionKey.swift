import Crypto

/// One of the studio backend's ES256 public keys that sign account assertions, named by the `kid` its assertions
/// carry (several while a key is rotated).
package struct AccountAssertionKey: Sendable {
    /// The key's name: an assertion's header `kid`.
    package let id: String
    /// The P-256 public key.
    package let key: P256.Signing.PublicKey

    /// Longest key id accepted, in bytes.
    package static let maximumIdLength = 128

    /// A key from its PEM text (`-----BEGIN PUBLIC KEY-----`, an X.509 SubjectPublicKeyInfo of a P-256 key).
    package init(id: String, pem: String) throws(AccountAssertionKeyError) {
        guard !id.isEmpty, id.utf8.count <= Self.maximumIdLength else {
            throw AccountAssertionKeyError("the key id must be 1 to \(Self.maximumIdLength) bytes")
        }
        do {
            key = try P256.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            throw AccountAssertionKeyError("is not a P-256 public key in PEM (SubjectPublicKeyInfo)")
        }
        self.id = id
    }

    /// A key as it is.
    package init(id: String, key: P256.Signing.PublicKey) {
        self.id = id
        self.key = key
    }
}

/// Why a configured account assertion key cannot be used.
package struct AccountAssertionKeyError: Error, Sendable, Equatable {
    /// What is wrong, to follow the setting's name.
    package let reason: String

    /// An error saying `reason`.
    package init(_ reason: String) { self.reason = reason }
}
