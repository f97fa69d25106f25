extension ServedRange {
    /// The most intervals the ledger stores for one (transaction, bundle): 1,024. A download, sequential or in parallel
    /// ranges, leaves one interval or a handful; only a client asking for many bytes far apart (one byte in every
    /// thousand, say) reaches it. Past it, a range that touches no stored interval is left out of the coverage, so the
    /// coverage under-states what was served and never over-states it; a range touching a stored one is always merged,
    /// so the whole bundle served always ends as full coverage.
    package static let storedIntervalLimit = 1_024
}
