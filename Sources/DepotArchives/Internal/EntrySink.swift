#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the format readers hand entries: checks each name and the limits, then writes the entry under
/// the extraction directory (or only counts it, when listing).
///
/// Every size limit is judged on bytes as they arrive, so a header that understates a size gains nothing.
/// Files are created with `O_EXCL | O_NOFOLLOW`, so nothing that exists is overwritten or followed.
final class EntrySink {
    private let root: String?
    private let limits: ArchiveLimits
    private var tree = EntryTree()
    private var createdFiles: [String] = []
    private var createdDirectories: [String] = []
    private var knownDirectories: Set<String> = []
    private var total: Int64 = 0
    private var count = 0
    private(set) var entries: [ArchiveEntry] = []

    private var openPath: String?
    private var openShown = ""
    private var openDescriptor: Int32 = -1
    private var openSize: Int64 = 0

    /// A sink writing under `root` (which exists and is empty), or only counting when `root` is nil.
    init(root: String?, limits: ArchiveLimits) {
        self.root = root
        self.limits = limits
    }

    /// A directory entry named `name` (raw bytes from the archive).
    func directory(_ name: [UInt8]) throws(ArchiveError) {
        guard case .path(let path, _) = try EntryPath.check(name, limits: limits) else { return }
        try admit(path, kind: .directory, shown: EntryPath.display(name))
        try makeDirectories(through: path, shown: EntryPath.display(name))
        entries.append(ArchiveEntry(path: path, kind: .directory, size: 0))
    }

    /// Starts a file entry; `declaredSize` (from its header) is judged at once, the real size as data arrives.
    func beginFile(_ name: [UInt8], declaredSize: Int64) throws(ArchiveError) {
        let shown = EntryPath.display(name)
        let checked = try EntryPath.check(name, limits: limits)
        guard case .path(let path, let trailingSlash) = checked, !trailingSlash else {
            throw ArchiveError(.malformed, entry: shown, "a file entry has a directory's name")
        }
        try admit(path, kind: .file, shown: shown)
        if declaredSize > limits.maxEntryBytes {
            throw ArchiveError(
                .entryTooLarge, entry: shown, "the entry declares \(declaredSize) bytes, more than \(limits.maxEntryBytes)")
        }
        if total + declaredSize > limits.maxTotalBytes {
            throw ArchiveError(.archiveTooLarge, entry: shown, "the entries declare more than \(limits.maxTotalBytes) bytes")
        }
        openPath = path
        openShown = shown
        openSize = 0
        if let root {
            if let slash = path.lastIndex(of: "/") { try makeDirectories(through: String(path[..<slash]), shown: shown) }
            let full = root + "/" + path
            let descriptor = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw ArchiveError(.io, entry: shown, "cannot create the file: \(systemErrorText())")
            }
            openDescriptor = descriptor
            createdFiles.append(full)
        }
    }

    /// Bytes of the open file entry.
    func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard openPath != nil else { return }
        openSize += Int64(bytes.count)
        total += Int64(bytes.count)
        if openSize > limits.maxEntryBytes {
            throw ArchiveError(.entryTooLarge, entry: openShown, "the entry expands past \(limits.maxEntryBytes) bytes")
        }
        if total > limits.maxTotalBytes {
            throw ArchiveError(.archiveTooLarge, entry: openShown, "the entries expand past \(limits.maxTotalBytes) bytes")
        }
        guard openDescriptor >= 0, var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = systemWrite(openDescriptor, base, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw ArchiveError(.io, entry: openShown, "writing the file failed: \(systemErrorText())")
            }
            left -= written
            base += written
        }
    }

    /// Ends the open file entry; returns its size.
    @discardableResult
    func endFile() throws(ArchiveError) -> Int64 {
        guard let path = openPath else { return 0 }
        openPath = nil
        if openDescriptor >= 0 {
            let result = close(openDescriptor)
            openDescriptor = -1
            guard result == 0 else { throw ArchiveError(.io, entry: openShown, "closing the file failed: \(systemErrorText())") }
        }
        entries.append(ArchiveEntry(path: path, kind: .file, size: openSize))
        return openSize
    }

    /// Removes everything this sink created, newest first (after a refusal: nothing half-extracted stays).
    func removeCreated() {
        if openDescriptor >= 0 {
            systemClose(openDescriptor)
            openDescriptor = -1
        }
        for file in createdFiles.reversed() { unlink(file) }
        for directory in createdDirectories.reversed() { rmdir(directory) }
        createdFiles.removeAll()
        createdDirectories.removeAll()
    }

    private func admit(_ path: String, kind: ArchiveEntry.Kind, shown: String) throws(ArchiveError) {
        count += 1
        if count > limits.maxEntries {
            throw ArchiveError(.tooManyEntries, entry: shown, "the archive holds more than \(limits.maxEntries) entries")
        }
        try tree.add(path, kind: kind, shown: shown)
    }

    private func makeDirectories(through path: String, shown: String) throws(ArchiveError) {
        guard let root, !knownDirectories.contains(path) else { return }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if knownDirectories.contains(prefix) { continue }
            let full = root + "/" + prefix
            guard mkdir(full, 0o755) == 0 else {
                throw ArchiveError(.io, entry: shown, "cannot create the directory `\(prefix)`: \(systemErrorText())")
            }
            createdDirectories.append(full)
            knownDirectories.insert(prefix)
        }
    }
}
