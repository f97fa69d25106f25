import DepotTrust

/// How a restore by account proves its account (`restore.accountAssertion` in `depot.json`): the studio backend's
/// ES256 public keys, the audience its assertions name, and the longest lifetime one may have.
package struct AccountAssertionSettings: Sendable {
    /// The keys, read (several while a key is rotated).
    package var keys: [AccountAssertionKey]
    /// The `aud` every assertion must carry.
    package var audience: String
    /// The longest `exp - iat`, in seconds.
    package var maxLifetimeSeconds: Int64

    /// Settings as read.
    package init(keys: [AccountAssertionKey], audience: String, maxLifetimeSeconds: Int64) {
        self.keys = keys
        self.audience = audience
        self.maxLifetimeSeconds = maxLifetimeSeconds
    }

    /// The verifier these settings describe.
    package var verifier: AccountAssertionVerifier {
        AccountAssertionVerifier(keys: keys, audience: audience, maxLifetimeSeconds: maxLifetimeSeconds)
    }
}
