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

    /// `ranges` in the order their rows are locked: by transaction, then bundle, each key's ranges in the order
    /// given (their last client and time are the last one's). Concurrent batches lock coverage rows in one order,
    /// so on PostgreSQL they cannot deadlock.
    static func inLockOrder(_ ranges: [ServedRange]) -> [ServedRange] {
        ranges.enumerated().sorted { a, b in
            (a.element.transactionId, a.element.digest, a.offset) < (b.element.transactionId, b.element.digest, b.offset)
        }.map(\.element)
    }
}
