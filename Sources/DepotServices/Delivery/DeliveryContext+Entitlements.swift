import DepotCore
import DepotLedger

extension DeliveryContext {
    /// The contents a stored transaction entitles now, judged by the type it was redeemed under (the catalog's
    /// when none was recorded), or the refusal. `stackingWith` adds non-renewing purchases known to be the same
    /// customer's (presented together in one restore). `audience` picks the versions released to part of the buyers
    /// or to test purchases (nil: the versions every buyer is offered).
    package func entitledContents(
        _ stored: LedgerTransaction, stackingWith: [PurchaseTransaction] = [], audience: ReleaseAudience? = nil
    ) async throws(DeliveryError) -> [ContentVersion] {
        let transaction = stored.transaction
        let catalog = self.catalog
        guard catalog.product(id: transaction.productId) != nil, let type = stored.judgedType(in: catalog) else {
            throw .unknownProduct(productId: transaction.productId)
        }
        var related = try await relatedTransactions(transaction, type: type)
        if type == .nonRenewing {
            let known = Set(related.map(\.id))
            related += stackingWith.filter { $0.productId == transaction.productId && !known.contains($0.id) }
        }
        let result = EntitlementRules.entitledContents(
            of: transaction, redeemedAs: stored.productType, related: related, isFinished: stored.state == .finished,
            catalog: catalog, now: clock() * 1000, audience: audience)
        switch result {
        case .success(let contents):
            if let endedAt = stored.rentalEndsAt, endedAt <= clock() { throw .rentalExpired(endedAt: endedAt) }
            return contents
        case .failure(.unknownProduct): throw .unknownProduct(productId: transaction.productId)
        case .failure(.revoked): throw .revoked
        case .failure(.consumableFinished): throw .consumableFinished
        }
    }

    /// Who asks, for the product's limited releases: the buyer is the purchase's signed app account token, else its
    /// original transaction id (never the account the app sends, which would let a buyer pick a rollout's bucket);
    /// what earlier redeems offered the purchase (itself or its original transaction, in the ledger) is read only
    /// when a rollout of the product is halted. Nil when the product has no limited release.
    package func audience(of stored: LedgerTransaction) async throws(DeliveryError) -> ReleaseAudience? {
        let transaction = stored.transaction
        let catalog = self.catalog
        guard catalog.hasLimitedRelease(productId: transaction.productId) else { return nil }
        var offered: Set<BundleDigest> = []
        if catalog.hasHaltedRollout(productId: transaction.productId) {
            for id in Set([transaction.id, transaction.originalId]) {
                offered.formUnion(
                    try await ledgerCall { () async throws(LedgerError) in try await ledger.offers(transactionId: id) }.map(\.digest))
            }
        }
        return ReleaseAudience(transaction, offered: offered)
    }

    /// The known transactions whose periods bear on a subscription's entitlement: an auto-renewable one's
    /// renewals (same original transaction), a non-renewing one's purchases stacking under its account token.
    package func relatedTransactions(
        _ transaction: PurchaseTransaction, type: ProductType
    ) async throws(DeliveryError) -> [PurchaseTransaction] {
        switch type {
        case .autoRenewable:
            return try await ledgerCall { () async throws(LedgerError) in
                try await ledger.transactions(originalId: transaction.originalId)
            }
        case .nonRenewing:
            guard let token = transaction.appAccountToken else { return [] }
            return try await ledgerCall { () async throws(LedgerError) in
                try await ledger.transactions(productId: transaction.productId, appAccountToken: token)
            }
        case .consumable, .nonConsumable, .freeSubscription:
            return []
        }
    }
}
