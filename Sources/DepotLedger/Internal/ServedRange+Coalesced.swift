import DepotCore

extension ServedRange {
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
}
