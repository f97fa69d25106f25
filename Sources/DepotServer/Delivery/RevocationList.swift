import NIOConcurrencyHelpers

/// Transactions whose grants stop working at the origin at once: refunded or revoked purchases.
///
/// Read by the bundle handler for every grant that names a transaction, so it is an in-memory set;
/// loaded from the ledger at start, updated by notifications, and refreshed from the ledger periodically
/// so that instances sharing a ledger converge.
package final class RevocationList: Sendable {
    private let revoked: NIOLockedValueBox<Set<String>>

    /// Creates a list holding these transaction ids.
    package init(_ ids: Set<String> = []) {
        revoked = NIOLockedValueBox(ids)
    }

    /// Whether grants of this transaction are refused.
    package func isRevoked(transactionId: String) -> Bool {
        revoked.withLockedValue { $0.contains(transactionId) }
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
