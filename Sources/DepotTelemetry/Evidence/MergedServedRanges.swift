import DepotCore
import DepotLedger
import DepotOrigin

/// One transaction's served ranges past its share of the recorder's queue, merged as they arrive: per bundle, sorted
/// intervals, disjoint and apart, with the requests, bytes and times they stand for. A range touching a merged interval
/// is always merged (a download keeps its coverage whatever its pace); one touching none is kept while the transaction
/// holds fewer than `limit` intervals, and left out (counted by the caller) after.
struct MergedServedRanges {
    /// One bundle's merged intervals and what they stand for.
    private struct Bundle {
        var intervals: [Range<Int64>] = []
        var requests = 0
        var bytesSent: Int64 = 0
        var firstAt: Int64
        var at: Int64
        var client: String
    }

    /// The most intervals held, over every bundle of the transaction.
    let limit: Int
    private var bundles: [BundleDigest: Bundle] = [:]
    /// The bundles in the order they first arrived.
    private var order: [BundleDigest] = []
    private var count = 0

    /// An empty set holding at most `limit` intervals.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Merges an answer's ranges; returns how many were left out.
    mutating func add(_ event: ServedBytes) -> Int {
        var bundle =
            bundles[event.digest] ?? Bundle(firstAt: event.at, at: event.at, client: event.client)
        if bundles[event.digest] == nil { order.append(event.digest) }
        bundle.requests += 1
        bundle.firstAt = min(bundle.firstAt, event.at)
        bundle.at = max(bundle.at, event.at)
        bundle.client = event.client
        var leftOut = 0
        for range in event.ranges where !range.isEmpty {
            bundle.bytesSent += Int64(range.count)
            switch Self.insert(range, into: &bundle.intervals, mayGrow: count < limit) {
            case .some(let growth): count += growth
            case .none: leftOut += 1
            }
        }
        bundles[event.digest] = bundle
        return leftOut
    }

    /// Merges `range` into sorted, disjoint, apart `intervals`: the change in their number, or nil when `range`
    /// touches none of them and `mayGrow` is false. Binary search, then the intervals it swallows.
    static func insert(_ range: Range<Int64>, into intervals: inout [Range<Int64>], mayGrow: Bool) -> Int? {
        // The first interval ending at or after the range's start: the first that can touch it (their ends ascend).
        var low = 0
        var high = intervals.count
        while low < high {
            let middle = low + (high - low) / 2
            if intervals[middle].upperBound < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var end = low
        var merged = range
        while end < intervals.count, intervals[end].lowerBound <= range.upperBound {
            merged = min(merged.lowerBound, intervals[end].lowerBound)..<max(merged.upperBound, intervals[end].upperBound)
            end += 1
        }
        guard end > low else {
            guard mayGrow else { return nil }
            intervals.insert(range, at: low)
            return 1
        }
        intervals.replaceSubrange(low..<end, with: [merged])
        return 1 - (end - low)
    }

    /// The merged ranges of `transactionId`, each bundle's requests and bytes on its first interval.
    func ranges(transactionId: String) -> [ServedRange] {
        order.flatMap { digest -> [ServedRange] in
            guard let bundle = bundles[digest] else { return [] }
            let intervals = bundle.intervals.isEmpty ? [0..<0] : bundle.intervals
            return intervals.enumerated().map { index, interval in
                ServedRange(
                    transactionId: transactionId, digest: digest, range: interval, client: bundle.client, at: bundle.at,
                    firstAt: bundle.firstAt, requests: index == 0 ? bundle.requests : 0,
                    bytesSent: index == 0 ? bundle.bytesSent : 0)
            }
        }
    }
}
