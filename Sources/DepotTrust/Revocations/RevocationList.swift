import DepotCore
import Synchronization

/// Transactions whose grants stop working at the origin at once: refunded or revoked purchases, and single
/// bundles taken back from a transaction that still stands.
///
/// Read by the bundle handler for every grant that names a transaction, so it is in memory behind one
/// lock; loaded from the ledger at start, updated by notifications, and refreshed from the ledger
/// periodically so that instances sharing a ledger converge.
package final class RevocationList: Sendable {
    /// One bundle of one transaction, refused on its own.
    private struct Pair: Hashable {
        var transactionId: String
        var digest: BundleDigest
    }

    private struct State {
        var revoked: Set<String>
        /// Local changes (revoked, or reinstated) by transaction, with the change counter after each: a refresh
        /// whose ledger read began before a change keeps it (see `replace(with:readSince:)`).
        var changes: [String: (sequence: UInt64, revoked: Bool)] = [:]
        var sequence: UInt64 = 0
        /// Bundles refused under transactions that still stand (a subscription renewal whose sibling, through
        /// which a period's issues were granted, was refunded), with when they were refused.
        var refusedBundles: [Pair: Int64] = [:]
        /// Revoked transactions whose purge was already submitted by this process.
        var purged: Set<String> = []
    }

    private let state: Mutex<State>

    /// Creates a list holding these transaction ids.
    package init(_ ids: Set<String> = []) {
        state = Mutex(State(revoked: ids))
    }

    /// Whether grants of this transaction are refused.
    package func isRevoked(transactionId: String) -> Bool {
        state.withLock { $0.revoked.contains(transactionId) }
    }

    /// Whether a grant of this transaction for this bundle is refused: the transaction is revoked, or this
    /// bundle no longer belongs to what it entitles.
    package func refuses(transactionId: String, digest: BundleDigest) -> Bool {
        state.withLock { state in
            state.revoked.contains(transactionId)
                || (!state.refusedBundles.isEmpty
                    && state.refusedBundles[Pair(transactionId: transactionId, digest: digest)] != nil)
        }
    }

    /// Refuses grants of one transaction for these bundles from `now` on (seconds since 1970).
    package func refuse(transactionId: String, digests: some Sequence<BundleDigest>, now: Int64) {
        state.withLock { state in
            for digest in digests { state.refusedBundles[Pair(transactionId: transactionId, digest: digest)] = now }
        }
    }

    /// Forgets bundle refusals made before `before`: every grant they could stop has expired.
    package func forgetBundleRefusals(before: Int64) {
        state.withLock { state in state.refusedBundles = state.refusedBundles.filter { $0.value >= before } }
    }

    /// Refuses the transaction's grants from now on.
    package func revoke(_ transactionId: String) {
        state.withLock { state in
            state.revoked.insert(transactionId)
            state.sequence += 1
            state.changes[transactionId] = (state.sequence, true)
        }
    }

    /// True the first time it is asked for a revoked transaction (since it was last reinstated): the caller
    /// submits its purge. Two paths learning of one revocation at once (a notification, and the ledger refresh
    /// that reads what the notification just wrote) purge it once.
    package func claimPurge(of transactionId: String) -> Bool {
        state.withLock { state in state.purged.insert(transactionId).inserted }
    }

    /// Accepts the transaction's grants again (a reversed refund).
    package func reinstate(_ transactionId: String) {
        state.withLock { state in
            state.revoked.remove(transactionId)
            state.purged.remove(transactionId)
            state.sequence += 1
            state.changes[transactionId] = (state.sequence, false)
        }
    }

    /// A mark to take just before reading the ledger's revoked ids for `replace(with:readSince:)`.
    package func mark() -> UInt64 {
        state.withLock { $0.sequence }
    }

    /// Replaces the revoked transaction ids with the ledger's, read after `mark` was taken; changes made here
    /// since the mark (a finish or a refund recorded while the ledger was being read) are kept over what the
    /// read saw. Returns the ids that were not revoked before.
    @discardableResult
    package func replace(with ids: Set<String>, readSince mark: UInt64) -> Set<String> {
        state.withLock { state in
            var next = ids
            for (id, change) in state.changes where change.sequence > mark {
                if change.revoked { next.insert(id) } else { next.remove(id) }
            }
            state.changes = state.changes.filter { $0.value.sequence > mark }
            let added = next.subtracting(state.revoked)
            state.revoked = next
            return added
        }
    }
}
