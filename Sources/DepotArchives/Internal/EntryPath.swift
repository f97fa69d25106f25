/// The rules an entry's name must follow before anything is written under the extraction directory.
///
/// Accepted: valid UTF-8 without control characters, relative, `/`-separated, no empty, `.` or `..`
/// component, no backslash (a separator on Windows, and a classic way to smuggle `..\`), no drive letter.
/// A leading `./` (as `tar -C dir .` writes) is dropped; a trailing `/` marks a directory.
enum EntryPath {
    /// What a name is once checked.
    enum Checked: Equatable {
        /// The extraction directory itself (`./`): nothing to create.
        case root
        /// A path below the extraction directory, and whether the name ended in `/`.
        case path(String, trailingSlash: Bool)
    }

    /// The name as people should see it in a message: decoded with replacement characters if need be.
    static func display(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(512), as: UTF8.self)
    }

    /// Checks and normalises a raw entry name.
    static func check(_ bytes: [UInt8], limits: ArchiveLimits) throws(ArchiveError) -> Checked {
        let shown = display(bytes)
        guard !bytes.isEmpty else { throw ArchiveError(.badName, entry: shown, "the entry has an empty name") }
        guard bytes.count <= limits.maxPathBytes else {
            throw ArchiveError(.badName, entry: shown, "the name is longer than \(limits.maxPathBytes) bytes")
        }
        guard let name = String(validating: bytes, as: UTF8.self) else {
            throw ArchiveError(.badName, entry: shown, "the name is not valid UTF-8")
        }
        if let control = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw ArchiveError(.badName, entry: shown, "the name holds the control character 0x\(String(control, radix: 16))")
        }
        if bytes.contains(0x5C) {
            throw ArchiveError(.unsafePath, entry: shown, "the name holds a backslash")
        }
        if bytes.first == 0x2F {
            throw ArchiveError(.unsafePath, entry: shown, "the path is absolute")
        }
        if bytes.count >= 2, bytes[1] == 0x3A, (0x41...0x5A).contains(bytes[0] & 0xDF) {
            throw ArchiveError(.unsafePath, entry: shown, "the path starts with a drive letter")
        }
        var rest = Substring(name)
        while rest.hasPrefix("./") { rest = rest.dropFirst(2) }
        if rest.isEmpty || rest == "." { return .root }
        let trailingSlash = rest.hasSuffix("/")
        if trailingSlash { rest = rest.dropLast() }
        for component in rest.split(separator: "/", omittingEmptySubsequences: false) {
            switch component {
            case "": throw ArchiveError(.unsafePath, entry: shown, "the path has an empty component")
            case ".": throw ArchiveError(.unsafePath, entry: shown, "the path has a `.` component")
            case "..": throw ArchiveError(.unsafePath, entry: shown, "the path has a `..` component")
            default: continue
            }
        }
        return .path(String(rest), trailingSlash: trailingSlash)
    }
}
