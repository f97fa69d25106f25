import DepotCore
/// The pure rule behind `Ledger.recordServed`: byte ranges served for one (transaction, digest) are kept
/// as disjoint, non-adjacent half-open intervals; a new range swallows every stored interval it overlaps
/// or touches.
struct CoverageMerge: Equatable {
    /// The interval that replaces `absorbed` (and the new range).
    var merged: Range<Int64>
    /// The stored intervals that overlap or touch the new range, to delete.
    var absorbed: [Range<Int64>]
    /// How many bytes the coverage grows by.
    var growth: Int64

    /// Whether a stored interval overlaps or is adjacent to `range` (the SQL engines select with the
    /// same condition: `start <= range.upperBound AND end >= range.lowerBound`).
    static func touches(_ stored: Range<Int64>, _ range: Range<Int64>) -> Bool {
        stored.lowerBound <= range.upperBound && stored.upperBound >= range.lowerBound
    }

    /// Merges `range` with the stored intervals that touch it (others are ignored).
    init(adding range: Range<Int64>, to stored: [Range<Int64>]) {
        let absorbed = stored.filter { Self.touches($0, range) }
        var lower = range.lowerBound
        var upper = range.upperBound
        for interval in absorbed {
            lower = min(lower, interval.lowerBound)
            upper = max(upper, interval.upperBound)
        }
        self.merged = lower..<upper
        self.absorbed = absorbed
        self.growth = (upper - lower) - absorbed.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }
}

extension PlannedDelivery {
    /// `contentId@version`, for audit details.
    var auditLabel: String { "\(contentId)@\(version)" }
}
