/// How large a pack may be. A pack past any limit is refused whole.
package struct PackLimits: Sendable, Equatable {
    /// The most files under `Contents/`.
    package var maxFileCount: Int
    /// The largest single file, in bytes.
    package var maxFileSize: Int64
    /// The largest total of all files, in bytes.
    package var maxTotalSize: Int64

    /// Limits with these values.
    package init(maxFileCount: Int, maxFileSize: Int64, maxTotalSize: Int64) {
        self.maxFileCount = maxFileCount
        self.maxFileSize = maxFileSize
        self.maxTotalSize = maxTotalSize
    }

    /// 10,000 files, 2 GiB per file, 8 GiB in all.
    package static let `default` = PackLimits(
        maxFileCount: 10_000, maxFileSize: 2 << 30, maxTotalSize: 8 << 30
    )
}
