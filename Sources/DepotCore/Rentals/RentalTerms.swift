/// A rent option's terms (Google Play's `rentalPeriod` and `expirationPeriod`), in seconds, as recorded with a
/// rented purchase: the rental lasts `rentalPeriod` from the purchase, and `expirationPeriod` from the start of
/// consumption, whichever ends first. Depot starts consumption at the first confirmed delivery (the finish that
/// records the content arrived), never when the app says it started.
public struct RentalTerms: Sendable, Equatable, Hashable, Codable {
    /// Seconds from the purchase within which the rental ends in any case.
    public var rentalPeriod: Int64
    /// Seconds from the first confirmed delivery within which the rental ends.
    public var expirationPeriod: Int64

    /// Terms as configured (each from 1 second to ``ISODuration/maximumSeconds``, checked where they are read).
    public init(rentalPeriod: Int64, expirationPeriod: Int64) {
        self.rentalPeriod = rentalPeriod
        self.expirationPeriod = expirationPeriod
    }

    /// When a rental bought at `purchaseDate` (milliseconds since 1970) ends, in seconds since 1970: the purchase
    /// (rounded down to its second) plus `rentalPeriod`, or `startedAt` (seconds, the first confirmed delivery)
    /// plus `expirationPeriod` when that is earlier. Sums past Int64's range hold at its bounds instead of trapping.
    public func endsAt(purchaseDate: Int64, startedAt: Int64?) -> Int64 {
        let purchased = purchaseDate / 1000 - (purchaseDate % 1000 < 0 ? 1 : 0)
        let byPurchase = Self.sum(purchased, rentalPeriod)
        guard let startedAt else { return byPurchase }
        return min(byPurchase, Self.sum(startedAt, expirationPeriod))
    }

    /// The latest a grant issued at `now` for a rental may last, whatever happens after: the rental's end as known
    /// now, and `now + expirationPeriod` while consumption has not started (it cannot start before `now`, so its end
    /// cannot come before that), so that no grant outlives the rental.
    public func grantBound(purchaseDate: Int64, startedAt: Int64?, now: Int64) -> Int64 {
        let known = endsAt(purchaseDate: purchaseDate, startedAt: startedAt)
        guard startedAt == nil else { return known }
        return min(known, Self.sum(now, expirationPeriod))
    }

    /// `a + b`, held at Int64's bounds.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return value }
        return b > 0 ? .max : .min
    }
}
