/// What a purchase entitles, per DESIGN.md's table of product types. Pure: the caller supplies the
/// catalog, every known transaction that bears on the answer, and the time.
public enum EntitlementRules {
    /// Why a transaction entitles nothing.
    public enum Refusal: Error, Sendable, Equatable {
        /// The product is not in the catalog.
        case unknownProduct
        /// The store refunded or revoked the purchase.
        case revoked
        /// A consumable whose delivery was already confirmed.
        case consumableFinished
    }

    /// The content versions a transaction entitles now.
    ///
    /// - Parameters:
    ///   - transaction: the transaction presented.
    ///   - recordedType: the type the transaction was redeemed under, as the ledger kept it; nil judges it by the
    ///     catalog's type (`Catalog.judgedType`).
    ///   - related: every known transaction that shares its subscription: for auto-renewable products
    ///     those of the same original transaction, for non-renewing ones the purchases that stack with it.
    ///     May include `transaction` itself.
    ///   - isFinished: whether the transaction's delivery has been confirmed.
    ///   - now: milliseconds since 1970; content published later is not yet available.
    ///   - audience: who asks, for the versions released to part of the buyers or to test purchases; nil: the
    ///     current versions everyone is offered.
    public static func entitledContents(
        of transaction: PurchaseTransaction, redeemedAs recordedType: ProductType? = nil, related: [PurchaseTransaction],
        isFinished: Bool, catalog: Catalog, now: Int64, audience: ReleaseAudience? = nil
    ) -> Result<[ContentVersion], Refusal> {
        guard let product = catalog.product(id: transaction.productId),
            let type = catalog.judgedType(productId: product.id, recorded: recordedType)
        else { return .failure(.unknownProduct) }
        guard !transaction.isRevoked else { return .failure(.revoked) }
        let published = catalog.currentContents(of: product.id, at: now / 1000, for: audience)
        // A subscription entitles an issue by its first publication, and delivers its current version.
        func issueDate(_ version: ContentVersion) -> Int64 {
            (catalog.firstPublishedAt(productId: product.id, contentId: version.contentId) ?? version.publishedAt)
                .secondsAsMilliseconds
        }
        switch type {
        case .consumable:
            return isFinished ? .failure(.consumableFinished) : .success(published)
        case .nonConsumable, .freeSubscription:
            return .success(published)
        case .autoRenewable:
            let periods = SubscriptionPeriods.autoRenewable(
                including(transaction, in: related),
                offlinePeriodMilliseconds: (product.periodSeconds ?? 0).secondsAsMilliseconds)
            return .success(published.filter { periods.contains(issueDate($0)) })
        case .nonRenewing:
            let duration = (product.periodSeconds ?? 0).secondsAsMilliseconds
            let periods = SubscriptionPeriods.nonRenewing(including(transaction, in: related), durationMilliseconds: duration)
            return .success(published.filter { periods.contains(issueDate($0)) })
        }
    }

    private static func including(_ transaction: PurchaseTransaction, in related: [PurchaseTransaction]) -> [PurchaseTransaction] {
        var all = related.filter { $0.id != transaction.id }
        all.append(transaction)
        return all
    }
}
