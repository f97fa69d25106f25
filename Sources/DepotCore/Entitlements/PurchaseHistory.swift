/// What a purchase listed from the ledger is to its buyer now, when it is history the device no longer shows
/// (Play Billing Library 8 hides consumed one-time products and expired subscriptions): a restore by account marks
/// each such purchase with it. Pure: the caller supplies the transaction, what bears on its periods and the time.
public enum PurchaseHistory: String, Sendable, Equatable, CaseIterable {
    /// A consumable whose delivery was confirmed and finished: used up.
    case consumed
    /// A subscription none of whose periods runs now or later (what it entitled inside them stays entitled).
    case expired
    /// Refunded, revoked or voided in whole.
    case revoked

    /// The history a transaction is, or nil when it is a purchase the device still sees (a non-consumable, an
    /// unfinished consumable, a running subscription, a partly refunded purchase).
    ///
    /// - Parameters:
    ///   - transaction: the transaction as the ledger holds it.
    ///   - type: the type it is judged by (`Catalog.judgedType`).
    ///   - isFinished: whether its delivery was confirmed.
    ///   - related: the transactions that share its subscription (as `EntitlementRules` takes them); may include it.
    ///   - periodSeconds: the product's period (a non-renewing product's duration, a Play subscription's offline one).
    ///   - now: milliseconds since 1970.
    public static func of(
        _ transaction: PurchaseTransaction, type: ProductType, isFinished: Bool, related: [PurchaseTransaction],
        periodSeconds: Int64?, now: Int64
    ) -> PurchaseHistory? {
        guard !transaction.isRevoked else { return .revoked }
        var all = related.filter { $0.id != transaction.id }
        all.append(transaction)
        let period = (periodSeconds ?? 0).secondsAsMilliseconds
        switch type {
        case .consumable:
            return isFinished ? .consumed : nil
        case .nonConsumable, .freeSubscription:
            return nil
        case .autoRenewable:
            return hasEnded(SubscriptionPeriods.autoRenewable(all, offlinePeriodMilliseconds: period), now: now) ? .expired : nil
        case .nonRenewing:
            return hasEnded(SubscriptionPeriods.nonRenewing(all, durationMilliseconds: period), now: now) ? .expired : nil
        }
    }

    /// Whether no period runs at `now` or after it.
    private static func hasEnded(_ periods: SubscriptionPeriods, now: Int64) -> Bool {
        !periods.intervals.contains { $0.upperBound > now }
    }
}
