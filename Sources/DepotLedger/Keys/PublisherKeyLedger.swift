/// Publisher API keys in the ledger, stored by their SHA-256 only.
package protocol PublisherKeyLedger: Sendable {
    /// Records a new key.
    func createPublisherKey(_ key: PublisherKeyRecord) async throws(LedgerError)

    /// Every key, oldest first.
    func publisherKeys() async throws(LedgerError) -> [PublisherKeyRecord]

    /// The key whose SHA-256 is `digest`, if any (the caller compares the digest again in constant time).
    func publisherKey(digest: [UInt8]) async throws(LedgerError) -> PublisherKeyRecord?

    /// Revokes a key by id.
    func revokePublisherKey(id: String, now: Int64) async throws(LedgerError) -> KeyRevocationOutcome
}
