import Crypto
import DepotCore

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

    /// Makes a grant for one bundle, valid until `expiresAt` (seconds since 1970), carrying the
    /// transaction id sealed. Ids longer than `TransactionSeal.maximumIdLength` bytes are refused earlier
    /// (at verification of the signed transaction); a grant made for one would never verify.
    package func issue(digest: BundleDigest, expiresAt: Int64, transactionId: String = "") -> String {
        let field = TransactionSeal.seal(transactionId, key: activeKey)
        let message = GrantToken.signedMessage(
            keyId: activeKey.id, digest: digest, expiresAt: expiresAt, transactionField: field)
        let encoded = Base64URL.encode(Array(activeKey.mac.code(for: message)))
        return "\(GrantToken.prefix).\(activeKey.id).\(expiresAt).\(field).\(encoded)"
    }

    /// The finish token of a transaction under the active key (see `FinishToken`).
    package func finishToken(transactionId: String) -> String {
        FinishToken.make(transactionId: transactionId, key: activeKey)
    }

    /// Whether `token` proves a finish of `transactionId`, under any configured key; compared in constant time.
    package func isValidFinishToken(_ token: String, transactionId: String) -> Bool {
        FinishToken.isValid(token, transactionId: transactionId, keys: keysById)
    }

    /// Checks a grant for a bundle at time `now`; returns the parsed grant when it opens that bundle.
    package func verify(_ token: String, digest: BundleDigest, now: Int64) throws(GrantError) -> GrantToken {
        guard let grant = GrantToken.parse(token), let mac = Base64URL.decode(grant.mac), mac.count == 32 else {
            throw GrantError(.malformed, "the grant is not a well-formed Depot grant")
        }
        guard let key = keysById[grant.keyId] else {
            throw GrantError(.unknownKey, "the grant was signed with a key this server no longer accepts")
        }
        let message = GrantToken.signedMessage(
            keyId: grant.keyId, digest: digest, expiresAt: grant.expiresAt, transactionField: grant.transactionField)
        guard key.mac.isValid(mac, for: message) else {
            // The MAC covers the digest, so a grant for another bundle lands here too.
            throw GrantError(.badSignature, "the grant does not open this bundle")
        }
        guard grant.expiresAt > now else {
            throw GrantError(.expired, "the grant has expired; ask for the downloads again for a fresh one")
        }
        var opened = grant
        guard let transactionId = TransactionSeal.open(Substring(grant.transactionField), key: key) else {
            throw GrantError(.badSignature, "the grant's transaction field was not sealed by this server")
        }
        opened.transactionId = transactionId
        return opened
    }
}
