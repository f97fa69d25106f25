/// One regular file of a pack, as it was when the pack was read.
package struct PackFile: Sendable, Equatable {
    /// The path relative to `Contents/`, `/`-separated, e.g. `images/a.png`.
    package var relativePath: String
    /// The size in bytes.
    package var size: Int64
    /// The modification time in nanoseconds since the epoch, when known (`PackReader` always records it).
    /// Not part of the bundle, whose times are fixed: the build cache's fingerprint uses it, and the
    /// writer checks it to notice a file changed since the pack was read.
    package var modificationTime: Int64?

    /// A file at `relativePath` under `Contents/`.
    package init(relativePath: String, size: Int64, modificationTime: Int64? = nil) {
        self.relativePath = relativePath
        self.size = size
        self.modificationTime = modificationTime
    }

    /// Equal when the paths have the same UTF-8 bytes (not merely canonically equivalent: a bundle stores
    /// names byte for byte) and the sizes and times match.
    package static func == (lhs: PackFile, rhs: PackFile) -> Bool {
        lhs.relativePath.utf8.elementsEqual(rhs.relativePath.utf8) && lhs.size == rhs.size
            && lhs.modificationTime == rhs.modificationTime
    }
}
