// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotArchives' sources (hence no import of DepotArchives there).
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotArchives
#endif

/// Reads arbitrary bytes as an archive, listed and extracted under tight limits, and lists every broken
/// invariant (an empty list: the input is handled correctly).
///
/// The input is the archive itself (zip, tar or tar.gz by its first bytes). Invariants: listing and
/// extracting agree; a refusal is an `ArchiveError` with a message (never `io`: the scratch disk works) and
/// leaves the extraction directory empty; an accepted archive stays within the limits, every entry's path
/// is relative and stays below the extraction directory, and what lands on disk is exactly the entries
/// listed: regular files of the sizes listed and directories, never a link, nothing else anywhere.
struct ArchiveFuzzHarness {
    /// Small limits, so that the fuzzer reaches every one of them with small inputs.
    static let limits = ArchiveLimits(
        maxEntries: 8, maxEntryBytes: 4096, maxTotalBytes: 8192, maxCompressionRatio: 20, ratioCheckAfterBytes: 1024,
        maxHeaderBytes: 1024, maxPathBytes: 64)

    /// The scratch directory: the archive is written to `input`, extracted into `out`.
    let scratch: String

    /// A harness working in `scratch`, an existing empty directory of its own.
    init(scratch: String) { self.scratch = scratch }

    /// The invariants broken for `data`, described.
    func violations(_ data: [UInt8]) -> [String] {
        let input = scratch + "/input"
        let out = scratch + "/out"
        guard Self.writeFile(input, data) else { return ["the scratch file could not be written"] }
        defer {
            Self.removeTree(out)
            unlink(input)
        }
        let listed: Result<[ArchiveEntry], ArchiveError>
        do throws(ArchiveError) { listed = .success(try Archive.entries(input, limits: Self.limits)) } catch {
            listed = .failure(error)
        }
        let extracted: Result<[ArchiveEntry], ArchiveError>
        do throws(ArchiveError) { extracted = .success(try Archive.extract(input, into: out, limits: Self.limits)) } catch {
            extracted = .failure(error)
        }
        var found: [String] = []
        if Self.list(scratch).sorted() != ["input", "out"] {
            found.append("the scratch directory holds \(Self.list(scratch).sorted())")
        }
        switch (listed, extracted) {
        case (.failure(let listing), .failure(let extraction)):
            for error in [listing, extraction] where error.code == .io || error.message.isEmpty {
                found.append("refused with \(error)")
            }
            if listing.code != extraction.code { found.append("listing refused with \(listing), extraction with \(extraction)") }
            let left = Self.walk(out)
            if !left.isEmpty { found.append("a refusal left \(left.map(\.path)) behind") }
        case (.success(let entries), .success(let written)):
            if entries != written { found.append("listing gave \(entries), extraction \(written)") }
            found += Self.entryViolations(entries)
            found += Self.diskViolations(entries, on: Self.walk(out))
        case (.success, .failure(let error)):
            found.append("listed, but extraction refused with \(error)")
        case (.failure(let error), .success):
            found.append("extracted, but listing refused with \(error)")
        }
        return found
    }

    /// The entries of an accepted archive keep to the limits and to safe paths.
    static func entryViolations(_ entries: [ArchiveEntry]) -> [String] {
        var found: [String] = []
        if entries.count > limits.maxEntries { found.append("\(entries.count) entries accepted") }
        var total: Int64 = 0
        for entry in entries {
            total += entry.size
            if entry.size > limits.maxEntryBytes || entry.size < 0 { found.append("entry \(entry) accepted") }
            if entry.kind == .directory && entry.size != 0 { found.append("directory \(entry) has a size") }
            let components = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            if entry.path.utf8.count > limits.maxPathBytes || entry.path.contains("\\")
                || components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
                || entry.path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            {
                found.append("unsafe path \(entry.path.debugDescription) accepted")
            }
        }
        if total > limits.maxTotalBytes { found.append("\(total) bytes accepted in all") }
        return found
    }

    /// What extraction wrote is exactly the entries: their files with their sizes, their directories and the
    /// directories above them, no link, nothing else.
    static func diskViolations(_ entries: [ArchiveEntry], on disk: [(path: String, kind: String, size: Int64)]) -> [String] {
        var expected: [String: (kind: String, size: Int64)] = [:]
        for entry in entries {
            var prefix = ""
            for component in entry.path.split(separator: "/").dropLast() {
                prefix += (prefix.isEmpty ? "" : "/") + component
                expected[prefix] = ("directory", 0)
            }
            expected[entry.path] = entry.kind == .file ? ("file", entry.size) : ("directory", 0)
        }
        var found: [String] = []
        var total: Int64 = 0
        for item in disk {
            total += item.size
            guard let wanted = expected.removeValue(forKey: item.path) else {
                found.append("extraction wrote \(item.kind) \(item.path.debugDescription), which is no entry")
                continue
            }
            if wanted.kind != item.kind || (item.kind == "file" && wanted.size != item.size) {
                found.append("\(item.path.debugDescription) is a \(item.kind) of \(item.size) bytes, listed as \(wanted)")
            }
        }
        for path in expected.keys.sorted() { found.append("\(path.debugDescription) was listed but not written") }
        if total > limits.maxTotalBytes { found.append("extraction wrote \(total) bytes") }
        return found
    }

    // MARK: - The scratch directory, through the system calls alone (nothing followed, nothing cached)

    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }

    /// The names in a directory, without `.` and `..`.
    static func list(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Everything below `root`, by `lstat`: a link is reported as a link, never followed.
    static func walk(_ root: String, under prefix: String = "") -> [(path: String, kind: String, size: Int64)] {
        var items: [(path: String, kind: String, size: Int64)] = []
        for name in list(prefix.isEmpty ? root : root + "/" + prefix) {
            let path = prefix.isEmpty ? name : prefix + "/" + name
            var status = stat()
            guard lstat(root + "/" + path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFREG: items.append((path, "file", Int64(status.st_size)))
            case S_IFDIR:
                items.append((path, "directory", 0))
                items += walk(root, under: path)
            case S_IFLNK: items.append((path, "link", 0))
            default: items.append((path, "special file", 0))
            }
        }
        return items
    }

    /// Removes `root` and everything below it.
    static func removeTree(_ root: String) {
        for item in walk(root).reversed() {
            if item.kind == "directory" { rmdir(root + "/" + item.path) } else { unlink(root + "/" + item.path) }
        }
        rmdir(root)
    }
}
