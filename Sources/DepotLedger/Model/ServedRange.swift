import DepotCore

/// One byte range of a bundle the origin served under a transaction's grant: what `Ledger.recordServed` merges
/// into that transaction's coverage of the bundle.
package struct ServedRange: Sendable, Equatable {
    /// The grant's transaction.
    package var transactionId: String
    /// The bundle's digest.
    package var digest: BundleDigest
    /// The bytes of the bundle sent.
    package var range: Range<Int64>
    /// The client's IP address (`unknown` without one).
    package var client: String
    /// When the answer was made, in seconds since 1970 (after `coalesced`, the latest of the answers it stands for).
    package var at: Int64
    /// The earliest of the answers it stands for: `at` for one answer; a new coverage row's first time.
    package var firstAt: Int64
    /// The requests this stands for: 1 for one answer's range; after `coalesced`, all of a bundle's in a batch on
    /// its first interval and 0 on the others.
    package var requests: Int
    /// The bytes sent that this stands for (`range.count` for one answer's range), counted as `requests` are.
    package var bytesSent: Int64

    /// A range one answer served.
    package init(transactionId: String, digest: BundleDigest, range: Range<Int64>, client: String, at: Int64) {
        self.init(
            transactionId: transactionId, digest: digest, range: range, client: client, at: at, firstAt: at, requests: 1,
            bytesSent: Int64(range.count))
    }

    /// A range standing for `requests` answers, made from `firstAt` to `at`, that sent `bytesSent` bytes in all.
    package init(
        transactionId: String, digest: BundleDigest, range: Range<Int64>, client: String, at: Int64, firstAt: Int64,
        requests: Int, bytesSent: Int64
    ) {
        self.transactionId = transactionId
        self.digest = digest
        self.range = range
        self.client = client
        self.at = at
        self.firstAt = firstAt
        self.requests = requests
        self.bytesSent = bytesSent
    }

    /// `ranges` with each bundle's ranges of a transaction merged into as few intervals as cover them (joined by the
    /// ledger's own rule, `CoverageMerge.touches`), recording the same coverage, requests, bytes sent and times as
    /// `ranges` one by one: a client asking for the same bytes again and again costs the ledger one merge per batch,
    /// not one per answer.
    /// Each bundle's requests and bytes are carried by its first interval; its last client, earliest and latest times
    /// by all.
    package static func coalesced(_ ranges: [ServedRange]) -> [ServedRange] {
        struct Key: Hashable {
            let transactionId: String
            let digest: BundleDigest
        }
        var order: [Key] = []
        var groups: [Key: [ServedRange]] = [:]
        for served in ranges {
            let key = Key(transactionId: served.transactionId, digest: served.digest)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(served)
        }
        guard order.count < ranges.count else { return ranges }
        var result: [ServedRange] = []
        result.reserveCapacity(order.count)
        for key in order {
            guard let group = groups[key], let last = group.last else { continue }
            var intervals: [Range<Int64>] = []
            for range in group.map(\.range).filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let previous = intervals.last, CoverageMerge.touches(previous, range) {
                    intervals[intervals.count - 1] = previous.lowerBound..<max(previous.upperBound, range.upperBound)
                } else {
                    intervals.append(range)
                }
            }
            let requests = group.reduce(0) { $0 + $1.requests }
            let bytesSent = group.reduce(Int64(0)) { $0 + $1.bytesSent }
            let (earliest, latest) = group.reduce((last.firstAt, last.at)) { (min($0.0, $1.firstAt), max($0.1, $1.at)) }
            for (index, interval) in (intervals.isEmpty ? [0..<0] : intervals).enumerated() {
                result.append(
                    ServedRange(
                        transactionId: key.transactionId, digest: key.digest, range: interval, client: last.client,
                        at: latest, firstAt: earliest, requests: index == 0 ? requests : 0,
                        bytesSent: index == 0 ? bytesSent : 0))
            }
        }
        return result
    }

    /// `ranges` in the order their rows are locked: by transaction, then bundle, each key's ranges in the order
    /// given (their last client and time are the last one's). Concurrent batches lock coverage rows in one order,
    /// so on PostgreSQL they cannot deadlock.
    static func inLockOrder(_ ranges: [ServedRange]) -> [ServedRange] {
        ranges.enumerated().sorted { a, b in
            (a.element.transactionId, a.element.digest, a.offset) < (b.element.transactionId, b.element.digest, b.offset)
        }.map(\.element)
    }
}
