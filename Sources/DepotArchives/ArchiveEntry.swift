/// One entry of an archive as it was (or would be) extracted.
public struct ArchiveEntry: Sendable, Equatable, CustomStringConvertible {
    /// What an entry is. Links, devices and the like are refused, so only these two exist.
    public enum Kind: Sendable, Equatable {
        /// A regular file.
        case file
        /// A directory.
        case directory
    }

    /// The path relative to the extraction directory, `/`-separated, without a trailing `/` or a leading `./`.
    public let path: String
    /// File or directory.
    public let kind: Kind
    /// Expanded size in bytes (0 for a directory), as counted while reading.
    public let size: Int64

    /// Creates an entry.
    public init(path: String, kind: Kind, size: Int64) {
        self.path = path
        self.kind = kind
        self.size = size
    }

    /// `path (size bytes)` or `path/`.
    public var description: String { kind == .directory ? path + "/" : "\(path) (\(size) bytes)" }
}
