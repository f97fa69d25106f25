import DepotCore

/// One answer's bundle bytes sent under a transaction's grant: the delivery evidence the ledger keeps.
package struct ServedBytes: Sendable, Equatable {
    /// The grant's transaction.
    package var transactionId: String
    /// The bundle's digest.
    package var digest: BundleDigest
    /// The byte ranges of the bundle the answer sent.
    package var ranges: [Range<Int64>]
    /// The client's IP address (`unknown` without one).
    package var client: String
    /// When the answer was made, in seconds since 1970.
    package var at: Int64

    /// An answer's served bytes.
    package init(transactionId: String, digest: BundleDigest, ranges: [Range<Int64>], client: String, at: Int64) {
        self.transactionId = transactionId
        self.digest = digest
        self.ranges = ranges
        self.client = client
        self.at = at
    }
}

/// Where the byte path hands the bytes it served under a grant, once each answer went out. Called on an event loop
/// for every such answer: an implementation queues and never waits (the server's writes them to the ledger).
package protocol ServedBytesRecording: Sendable {
    /// Takes one answer's served bytes; never blocks.
    func record(_ served: ServedBytes)
}
