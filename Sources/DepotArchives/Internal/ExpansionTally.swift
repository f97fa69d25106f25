/// Compressed bytes consumed and bytes produced from them, judged against `ArchiveLimits.maxCompressionRatio`
/// once more than `ratioCheckAfterBytes` were produced: the defence against archive bombs, for one zip
/// entry, for a whole zip archive (many small bombs add up) and for a gzip stream.
///
/// Counts grow only by what a read or an inflate step really moved, with overflow-checked additions.
struct ExpansionTally {
    private(set) var consumed: Int64 = 0
    private(set) var produced: Int64 = 0
    /// What the tally is of, for the refusal's message: "the entry", "the archive", "the gzip stream".
    let subject: String

    init(of subject: String) {
        self.subject = subject
    }

    /// Adds one step's counts, then judges the ratio.
    mutating func add(consumed moreIn: Int, produced moreOut: Int, limits: ArchiveLimits, entry: String?) throws(ArchiveError) {
        let (newConsumed, overflowIn) = consumed.addingReportingOverflow(Int64(moreIn))
        let (newProduced, overflowOut) = produced.addingReportingOverflow(Int64(moreOut))
        guard !overflowIn, !overflowOut else {
            throw ArchiveError(.archiveTooLarge, entry: entry, "\(subject) is larger than can be counted")
        }
        (consumed, produced) = (newConsumed, newProduced)
        guard produced > limits.ratioCheckAfterBytes else { return }
        let (bound, overflow) = max(consumed, 1).multipliedReportingOverflow(by: limits.maxCompressionRatio)
        if !overflow, produced > bound {
            throw ArchiveError(
                .compressionRatio, entry: entry,
                "\(subject) expands more than \(limits.maxCompressionRatio) times (\(produced) bytes from \(consumed))")
        }
    }
}
