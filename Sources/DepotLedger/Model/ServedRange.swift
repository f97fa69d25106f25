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
    /// When the answer was made, in seconds since 1970.
    package var at: Int64

    /// A served range.
    package init(transactionId: String, digest: BundleDigest, range: Range<Int64>, client: String, at: Int64) {
        self.transactionId = transactionId
        self.digest = digest
        self.range = range
        self.client = client
        self.at = at
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
