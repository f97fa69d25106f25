/// The paths an archive has given so far, to refuse a path given twice and a file standing where a later
/// entry needs a directory (`a` then `a/b`), which extraction would otherwise resolve by overwriting.
struct EntryTree {
    private var files: Set<String> = []
    private var directories: Set<String> = []
    private var explicitDirectories: Set<String> = []

    /// Records `path` as a file or directory, with its parents as directories.
    mutating func add(_ path: String, kind: ArchiveEntry.Kind, shown: String) throws(ArchiveError) {
        var parent = Substring(path)
        var parents: [String] = []
        while let slash = parent.lastIndex(of: "/") {
            parent = parent[..<slash]
            if files.contains(String(parent)) {
                throw ArchiveError(.duplicate, entry: shown, "`\(parent)` is a file earlier in the archive, not a directory")
            }
            parents.append(String(parent))
        }
        switch kind {
        case .file:
            if files.contains(path) { throw ArchiveError(.duplicate, entry: shown, "the archive holds this file twice") }
            if directories.contains(path) {
                throw ArchiveError(.duplicate, entry: shown, "the archive holds this path as a directory and as a file")
            }
            files.insert(path)
        case .directory:
            if files.contains(path) {
                throw ArchiveError(.duplicate, entry: shown, "the archive holds this path as a file and as a directory")
            }
            if explicitDirectories.contains(path) {
                throw ArchiveError(.duplicate, entry: shown, "the archive holds this directory twice")
            }
            explicitDirectories.insert(path)
            directories.insert(path)
        }
        for parent in parents { directories.insert(parent) }
    }
}
