import Crypto

/// Issues and checks grants: HMAC-SHA256 tokens bound to a bundle digest, an expiry and a transaction.
///
/// One key signs (the active one); every configured key is accepted when checking, so rotating keys means
/// adding a new active key and removing the old one once its grants have expired. Checking needs no
/// database read and no allocation beyond the token's fields.
package struct GrantAuthority: Sendable {
    /// The key that signs new grants.
    package let activeKey: GrantKey
    private let keysById: [String: GrantKey]

    /// Creates an authority from its keys and the id of the one that signs.
    package init(keys: [GrantKey], activeKeyId: String) throws(GrantError) {
        var byId: [String: GrantKey] = [:]
        for key in keys {
            guard byId[key.id] == nil else { throw GrantError(.badKey, "grant key id \"\(key.id)\" appears twice") }
            byId[key.id] = key
        }
        guard let active = byId[activeKeyId] else {
            throw GrantError(.badKey, "the active grant key \"\(activeKeyId)\" is not among the configured keys")
        }
        self.activeKey = active
        self.keysById = byId
    }

    /// Makes a grant for one bundle, valid until `expiresAt` (seconds since 1970).
    package func issue(digest: String, expiresAt: Int64, transactionId: String = "") -> String {
        precondition(GrantToken.isTokenSafe(Substring(transactionId), allowEmpty: true), "transaction id not token-safe")
        let message = GrantToken.signedMessage(
            keyId: activeKey.id, digest: digest, expiresAt: expiresAt, transactionId: transactionId)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: activeKey.key)
        let encoded = Base64URL.encode(Array(mac))
        return "\(GrantToken.prefix).\(activeKey.id).\(expiresAt).\(transactionId).\(encoded)"
    }

    /// Checks a grant for a bundle at time `now`; returns the parsed grant when it opens that bundle.
    package func verify(_ token: String, digest: String, now: Int64) throws(GrantError) -> GrantToken {
        guard let grant = GrantToken.parse(token), let mac = Base64URL.decode(grant.mac), mac.count == 32 else {
            throw GrantError(.malformed, "the grant is not a well-formed Depot grant")
        }
        guard let key = keysById[grant.keyId] else {
            throw GrantError(.unknownKey, "the grant was signed with a key this server no longer accepts")
        }
        let message = GrantToken.signedMessage(
            keyId: grant.keyId, digest: digest, expiresAt: grant.expiresAt, transactionId: grant.transactionId)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key.key) else {
            // The MAC covers the digest, so a grant for another bundle lands here too.
            throw GrantError(.badSignature, "the grant does not open this bundle")
        }
        guard grant.expiresAt > now else {
            throw GrantError(.expired, "the grant has expired; ask for the downloads again for a fresh one")
        }
        return grant
    }
}
