import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// What the delivery flows (redeem, finish, restore, and the revocations they learn of) share: the ledger, the
/// catalog served now, the grants, the revocations the byte path honours and the purges edges are sent.
package struct DeliveryContext: Sendable {
    /// Where transactions, attempts and deliveries are recorded.
    package let ledger: any Ledger
    /// The catalog being served; read anew by every call, so a publish is seen at once.
    package let catalogs: CatalogHolder
    /// Issues download grants and finish tokens.
    package let grants: GrantAuthority
    /// Seconds a download grant lasts.
    package let grantLifetime: Int64
    /// The transactions and bundles whose grants the origin refuses.
    package let revocations: RevocationList
    /// Where the purges of revocations go (the grant checks edges keep for revoked purchases).
    package let purges: PurgeQueue
    /// Now, in seconds since 1970.
    package let clock: @Sendable () -> Int64
    /// Where the flows log.
    package let logger: Logger
    /// What a prorated refund of each product not counted in units does (`refunds.prorated` in `products.json`);
    /// a product not listed revokes (``ProratedRefundPolicy/revoke``).
    package var proratedRefunds: [String: ProratedRefundPolicy] = [:]

    /// The shared parts.
    package init(
        ledger: any Ledger, catalogs: CatalogHolder, grants: GrantAuthority, grantLifetime: Int64,
        revocations: RevocationList, purges: PurgeQueue, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.ledger = ledger
        self.catalogs = catalogs
        self.grants = grants
        self.grantLifetime = grantLifetime
        self.revocations = revocations
        self.purges = purges
        self.clock = clock
        self.logger = logger
    }

    /// The catalog served now.
    package var catalog: Catalog { catalogs.current }

    /// Runs ledger work; a ledger failure is logged and becomes `ledgerUnavailable`. With `recording`, the id of a
    /// transaction the work records, a conflict (the ledger holds another purchase under that id) is logged as a
    /// warning and becomes `transactionConflict`.
    package func ledgerCall<T>(
        recording transactionId: String? = nil, _ body: () async throws(LedgerError) -> T
    ) async throws(DeliveryError) -> T {
        do {
            return try await body()
        } catch {
            switch error.code {
            case .conflict where transactionId != nil:
                let transactionId = transactionId ?? ""
                logger.warning("transaction conflict", metadata: ["transaction": "\(transactionId)", "error": "\(error.message)"])
                throw .transactionConflict(transactionId: transactionId)
            case .unavailable, .busy, .corrupt, .migration, .conflict, .constraint:
                logger.error("ledger failure", metadata: ["error": "\(error)", "engineCode": "\(error.engineCode ?? "-")"])
                throw .ledgerUnavailable
            }
        }
    }
}
