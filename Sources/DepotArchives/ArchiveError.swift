/// Why an archive was refused or could not be read: a stable code, the entry it concerns (its name as
/// written in the archive, when there is one) and a message for people.
///
/// Messages name entries by their path inside the archive, never by a path on this machine.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable reason. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case unknownFormat = "unknown-format"
            case truncated = "truncated"
            case malformed = "malformed"
            case unsupported = "unsupported"
            case unsafePath = "unsafe-path"
            case badName = "bad-name"
            case link = "link"
            case specialFile = "special-file"
            case duplicate = "duplicate"
            case tooManyEntries = "too-many-entries"
            case entryTooLarge = "entry-too-large"
            case archiveTooLarge = "archive-too-large"
            case compressionRatio = "compression-ratio"
            case checksumMismatch = "checksum-mismatch"
            case io = "io"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Neither a zip, a tar nor a gzip-compressed tar (by magic bytes).
        public static let unknownFormat = Code(.unknownFormat)
        /// The archive ends before a record, an entry's data or the end-of-archive marker.
        public static let truncated = Code(.truncated)
        /// A record is not what the format says (bad signature, checksum of a header, sizes that disagree).
        public static let malformed = Code(.malformed)
        /// A valid feature this reader does not handle: encryption, a compression method other than stored
        /// and deflate, split archives, sparse tar entries.
        public static let unsupported = Code(.unsupported)
        /// An absolute path, a `..` or `.` component in the middle, an empty component, a backslash, a drive
        /// letter.
        public static let unsafePath = Code(.unsafePath)
        /// A name that is not valid UTF-8, holds a control character, or is too long.
        public static let badName = Code(.badName)
        /// A symbolic or hard link.
        public static let link = Code(.link)
        /// A device, FIFO or other entry that is neither a regular file nor a directory.
        public static let specialFile = Code(.specialFile)
        /// A path given twice, or a file where a directory is needed.
        public static let duplicate = Code(.duplicate)
        /// More entries than `ArchiveLimits.maxEntries`.
        public static let tooManyEntries = Code(.tooManyEntries)
        /// An entry larger than `ArchiveLimits.maxEntryBytes` once expanded.
        public static let entryTooLarge = Code(.entryTooLarge)
        /// Entries totalling more than `ArchiveLimits.maxTotalBytes` once expanded.
        public static let archiveTooLarge = Code(.archiveTooLarge)
        /// Data that expands more than `ArchiveLimits.maxCompressionRatio` times (an archive bomb).
        public static let compressionRatio = Code(.compressionRatio)
        /// An entry's CRC-32, or its expanded size, is not the one its header declares.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// Reading the archive or writing the extracted files failed.
        public static let io = Code(.io)

        /// The code whose stable string form is `rawValue`; nil for a string that names no code.
        public init?(rawValue: String) {
            guard let base = Base(rawValue: rawValue) else { return nil }
            self.base = base
        }

        /// The stable string form, e.g. `"compression-ratio"`.
        public var rawValue: String { base.rawValue }
        /// The same as `rawValue`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The entry's name as written in the archive (lossily decoded when it is not UTF-8), if one is concerned.
    public let entry: String?
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, entry: String? = nil, _ message: String) {
        self.code = code
        self.entry = entry
        self.message = message
    }

    /// `code: entry: message`.
    public var description: String {
        if let entry { return "\(code): \(entry): \(message)" }
        return "\(code): \(message)"
    }
}
