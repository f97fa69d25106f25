/// Half-open time intervals `[start, end)` in milliseconds, merged so none overlap or touch.
public struct SubscriptionPeriods: Sendable, Equatable {
    /// The merged intervals in ascending order.
    public private(set) var intervals: [Range<Int64>]

    /// Merges intervals; empty ones are dropped.
    public init(_ intervals: [Range<Int64>]) {
        var merged: [Range<Int64>] = []
        for interval in intervals.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, interval.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, interval.upperBound)
            } else {
                merged.append(interval)
            }
        }
        self.intervals = merged
    }

    /// Whether an instant lies inside a period.
    public func contains(_ instant: Int64) -> Bool {
        intervals.contains { $0.contains(instant) }
    }

    /// Periods of an auto-renewable subscription: each unrevoked transaction of the same original
    /// transaction covers `[purchaseDate, expiresDate)`; gaps between them are lapses. A transaction that
    /// expires before it was purchased (refused at verification, but possibly stored earlier) covers nothing.
    ///
    /// A Google Play purchase checked offline carries no expiry: it covers `offlinePeriodMilliseconds` from its
    /// purchase (the product's `periodDays`; nothing when zero).
    public static func autoRenewable(
        _ transactions: [PurchaseTransaction], offlinePeriodMilliseconds: Int64 = 0
    ) -> SubscriptionPeriods {
        SubscriptionPeriods(
            transactions.compactMap { transaction in
                guard !transaction.isRevoked else { return nil }
                let expires: Int64
                if let signed = transaction.expiresDate {
                    expires = signed
                } else if transaction.store == .googlePlay, offlinePeriodMilliseconds > 0 {
                    let (end, overflow) = transaction.purchaseDate.addingReportingOverflow(offlinePeriodMilliseconds)
                    expires = overflow ? Int64.max : end
                } else {
                    return nil
                }
                guard transaction.purchaseDate <= expires else { return nil }
                return transaction.purchaseDate..<expires
            })
    }

    /// Periods of a non-renewing subscription: each unrevoked purchase adds `duration` (times quantity),
    /// starting at its purchase date or, when an earlier period is still running, where that one ends.
    /// A duration below zero counts as zero.
    public static func nonRenewing(_ transactions: [PurchaseTransaction], durationMilliseconds: Int64) -> SubscriptionPeriods {
        let durationMilliseconds = max(0, durationMilliseconds)
        var intervals: [Range<Int64>] = []
        for transaction in transactions.filter({ !$0.isRevoked }).sorted(by: { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }) {
            let start = max(transaction.purchaseDate, intervals.last?.upperBound ?? Int64.min)
            let (length, overflow) = durationMilliseconds.multipliedReportingOverflow(by: Int64(max(1, transaction.quantity)))
            let (end, endOverflow) = start.addingReportingOverflow(overflow ? Int64.max : length)
            intervals.append(start..<(endOverflow ? Int64.max : end))
        }
        return SubscriptionPeriods(intervals)
    }
}
