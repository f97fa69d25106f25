/// Bounds an archive must stay within to be read: the defence against archive bombs and resource
/// exhaustion. Sizes are checked against the bytes actually produced while reading, not only against
/// what headers declare.
public struct ArchiveLimits: Sendable, Equatable {
    /// Most entries (files and directories) an archive may hold.
    public var maxEntries: Int
    /// Largest expanded size of one entry, in bytes.
    public var maxEntryBytes: Int64
    /// Largest expanded size of all entries together, in bytes.
    public var maxTotalBytes: Int64
    /// Most times compressed data may expand: checked for each zip entry, and for a gzip stream as a
    /// whole, once it has produced more than `ratioCheckAfterBytes`.
    public var maxCompressionRatio: Int64
    /// Output below which the ratio is not judged (small, very regular files compress extremely well).
    public var ratioCheckAfterBytes: Int64
    /// Largest tar extended header (pax records, GNU long names), in bytes.
    public var maxHeaderBytes: Int
    /// Longest entry path, in bytes of UTF-8.
    public var maxPathBytes: Int

    /// Limits fit for content packs: 10,000 entries, 2 GiB per entry, 8 GiB in all, a ratio of 200
    /// judged past 1 MiB, 64 KiB extended headers, 1,024-byte paths.
    public init(
        maxEntries: Int = 10_000, maxEntryBytes: Int64 = 2 << 30, maxTotalBytes: Int64 = 8 << 30,
        maxCompressionRatio: Int64 = 200, ratioCheckAfterBytes: Int64 = 1 << 20, maxHeaderBytes: Int = 64 << 10,
        maxPathBytes: Int = 1024
    ) {
        self.maxEntries = maxEntries
        self.maxEntryBytes = maxEntryBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckAfterBytes = ratioCheckAfterBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxPathBytes = maxPathBytes
    }
}
