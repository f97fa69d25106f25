/// Leases that let one instance at a time do a piece of shared work (collecting the object store). Part of every
/// `Ledger`.
///
/// A lease has a name, an owner and an expiry: an owner keeps it by taking it again before it expires; another
/// instance takes it only once it expired (its owner stopped, or was killed).
package protocol LeaseLedger: Sendable {
    /// Takes or renews the lease `name` for `owner` until `now + seconds` when it is free, expired, or `owner`'s
    /// already; true when `owner` holds it afterwards.
    func acquireLease(_ name: String, owner: String, now: Int64, seconds: Int64) async throws(LedgerError) -> Bool

    /// Gives up the lease `name` if `owner` holds it, so that anyone may take it at once; nothing otherwise.
    func releaseLease(_ name: String, owner: String) async throws(LedgerError)
}
