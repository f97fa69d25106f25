import DepotCore
import DepotLedger
import DepotTrust
import Logging
import ServiceLifecycle

/// Reloads the transactions whose grants are refused from the ledger every few seconds, so that a refund or
/// a consumable's finish recorded by another instance sharing the ledger stops grants here too.
package struct RevocationRefresh: Service {
    let ledger: any Ledger
    let revocations: RevocationList
    let catalogs: CatalogHolder
    let grantLifetime: Int64
    let clock: @Sendable () -> Int64
    let interval: Duration
    let logger: Logger
    /// Called with transactions found revoked since the last refresh (by another instance sharing the ledger, or
    /// by `depot transactions refresh`); not with consumables found finished.
    var onNewlyRevoked: @Sendable (Set<String>) async -> Void = { _ in }

    /// Reloads `revocations` from `ledger` every `interval`; `onNewlyRevoked` is told the purchases found revoked.
    package init(
        ledger: any Ledger, revocations: RevocationList, catalogs: CatalogHolder, grantLifetime: Int64,
        clock: @escaping @Sendable () -> Int64, interval: Duration, logger: Logger,
        onNewlyRevoked: @escaping @Sendable (Set<String>) async -> Void = { _ in }
    ) {
        self.ledger = ledger
        self.revocations = revocations
        self.catalogs = catalogs
        self.grantLifetime = grantLifetime
        self.clock = clock
        self.interval = interval
        self.logger = logger
        self.onNewlyRevoked = onNewlyRevoked
    }

    /// Refunded or revoked transactions, and consumables finished within the grant lifetime (a consumable's
    /// grants work until its transaction is finished; older grants have expired anyway).
    package static func refusedTransactionIds(
        ledger: any Ledger, catalog: Catalog, grantLifetime: Int64, now: Int64
    ) async throws(LedgerError) -> Set<String> {
        let (revoked, finished) = try await refused(ledger: ledger, catalog: catalog, grantLifetime: grantLifetime, now: now)
        return revoked.union(finished)
    }

    /// The refunded or revoked transactions, and apart from them the consumables finished within the grant lifetime.
    package static func refused(
        ledger: any Ledger, catalog: Catalog, grantLifetime: Int64, now: Int64
    ) async throws(LedgerError) -> (revoked: Set<String>, finished: Set<String>) {
        // Judged by the type each was redeemed under; the catalog's consumables for those recorded without one.
        let consumables = catalog.products.filter { $0.type == .consumable }.map(\.id)
        let finished = try await ledger.finishedConsumableIds(catalogConsumables: consumables, finishedSince: now - grantLifetime)
        return (try await ledger.revokedTransactionIds(), finished)
    }

    package func run() async throws {
        // A graceful shutdown cancels the wait; that is the normal end, not an error.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    let now = clock()
                    let mark = revocations.mark()
                    let (revoked, finished) = try await Self.refused(
                        ledger: ledger, catalog: catalogs.current, grantLifetime: grantLifetime, now: now)
                    let newlyRefused = revocations.replace(with: revoked.union(finished), readSince: mark)
                    revocations.forgetBundleRefusals(before: now - grantLifetime)
                    // A finished consumable is refused too, but it was not revoked: nothing more to do for it.
                    let newlyRevoked = newlyRefused.intersection(revoked)
                    if !newlyRevoked.isEmpty { await onNewlyRevoked(newlyRevoked) }
                } catch {
                    logger.warning("revocations not refreshed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
