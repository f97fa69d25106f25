import NIOConcurrencyHelpers

/// Transactions whose grants stop working at the origin at once: refunded or revoked purchases.
///
/// Read by the bundle handler for every grant that names a transaction, so it is an in-memory set;
/// loaded from the ledger at start, updated by notifications, and refreshed from the ledger periodically
/// so that instances sharing a ledger converge.
package final class RevocationList: Sendable {
    /// One bundle of one transaction, refused on its own.
    private struct Pair: Hashable {
        var transactionId: String
        var digest: String
    }

    private let revoked: NIOLockedValueBox<Set<String>>
    /// Bundles refused under transactions that still stand (a subscription renewal whose sibling, through which
    /// a period's issues were granted, was refunded), with when they were refused.
    private let refusedBundles = NIOLockedValueBox<[Pair: Int64]>([:])

    /// Creates a list holding these transaction ids.
    package init(_ ids: Set<String> = []) {
        revoked = NIOLockedValueBox(ids)
    }

    /// Whether grants of this transaction are refused.
    package func isRevoked(transactionId: String) -> Bool {
        revoked.withLockedValue { $0.contains(transactionId) }
    }

    /// Whether a grant of this transaction for this bundle is refused: the transaction is revoked, or this
    /// bundle no longer belongs to what it entitles.
    package func refuses(transactionId: String, digest: String) -> Bool {
        if isRevoked(transactionId: transactionId) { return true }
        return refusedBundles.withLockedValue { pairs in
            !pairs.isEmpty && pairs[Pair(transactionId: transactionId, digest: digest)] != nil
        }
    }

    /// Refuses grants of one transaction for these bundles from `now` on (seconds since 1970).
    package func refuse(transactionId: String, digests: some Sequence<String>, now: Int64) {
        refusedBundles.withLockedValue { pairs in
            for digest in digests { pairs[Pair(transactionId: transactionId, digest: digest)] = now }
        }
    }

    /// Forgets bundle refusals made before `before`: every grant they could stop has expired.
    package func forgetBundleRefusals(before: Int64) {
        refusedBundles.withLockedValue { pairs in pairs = pairs.filter { $0.value >= before } }
    }

    /// Refuses the transaction's grants from now on.
    package func revoke(_ transactionId: String) {
        _ = revoked.withLockedValue { $0.insert(transactionId) }
    }

    /// Accepts the transaction's grants again (a reversed refund).
    package func reinstate(_ transactionId: String) {
        _ = revoked.withLockedValue { $0.remove(transactionId) }
    }

    /// Replaces the whole set with the ledger's revoked transaction ids.
    package func replace(with ids: Set<String>) {
        revoked.withLockedValue { $0 = ids }
    }
}
