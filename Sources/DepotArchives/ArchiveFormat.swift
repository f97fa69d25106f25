/// The archive formats read, told apart by their magic bytes (never by a file name).
public enum ArchiveFormat: String, Sendable, Equatable, CaseIterable {
    /// PKWARE zip: `PK\u{3}\u{4}` (or `PK\u{5}\u{6}` for an empty archive) at offset 0.
    case zip
    /// POSIX ustar or GNU tar: `ustar` at offset 257.
    case tar
    /// A gzip stream (`1f 8b 08`) holding a tar.
    case tarGzip = "tar.gz"

    /// The format whose magic bytes `prefix` (the archive's first 512 bytes or fewer) starts with, if any.
    public static func detect(_ prefix: [UInt8]) -> ArchiveFormat? {
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) || prefix.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            return .zip
        }
        if prefix.starts(with: [0x1F, 0x8B, 0x08]) { return .tarGzip }
        if prefix.count >= 262, Array(prefix[257..<262]) == Array("ustar".utf8) { return .tar }
        return nil
    }

    /// The format of the archive file at `path`, read from its first bytes.
    public static func detect(path: String) throws(ArchiveError) -> ArchiveFormat {
        let file = try InputFile(path: path)
        defer { file.close() }
        var prefix = [UInt8](repeating: 0, count: 512)
        let count = try file.read(at: 0, into: &prefix)
        guard let format = detect(Array(prefix.prefix(count))) else {
            throw ArchiveError(.unknownFormat, "the archive is neither a zip, a tar nor a tar.gz (by its first bytes)")
        }
        return format
    }
}
