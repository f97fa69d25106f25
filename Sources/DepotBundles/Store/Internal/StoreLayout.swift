import DepotCore

#if canImport(Glibc)
import DepotSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The paths of a local bundle store: `<root>/<digest[0..<2]>/<digest>.zip`, `<root>/tmp/<workspace>/`,
/// `<root>/index.json`.
struct StoreLayout: Sendable {
    let root: String
    /// This store instance's own directory for partial files (see `WorkspaceLock`).
    let temporaryDirectory: String

    /// The directory holding every instance's workspace.
    static func workspacesDirectory(root: String) -> String { root + "/tmp" }
    var indexPath: String { root + "/index.json" }

    func shardDirectory(for digest: BundleDigest) -> String { root + "/" + digest.shard }
    func bundlePath(for digest: BundleDigest) -> String { shardDirectory(for: digest) + "/" + digest.hex + ".zip" }

    /// A fresh name under `tmp/` for a file being written.
    func temporaryPath() -> String {
        let random = (0..<2).map { _ in UInt64.random(in: .min ... .max) }
            .flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return temporaryDirectory + "/" + Hex.lowercase(random) + ".partial"
    }

    /// Whether the bundle for `record` is in place with the right size.
    func holds(_ record: BundleRecord) -> Bool {
        guard let status = try? FileStatus.lstat(bundlePath(for: record.digest)) else { return false }
        return status.kind == .regular && status.size == record.size
    }

    /// Moves a finished, synced temporary file into its final place and makes the rename durable.
    /// A bundle already in place is never replaced: the temporary file is dropped instead.
    func place(_ temporary: String, as record: BundleRecord) throws(SystemCallError) {
        if holds(record) {
            POSIX.unlinkFile(temporary)
            return
        }
        let shard = shardDirectory(for: record.digest)
        if (try? FileStatus.lstat(shard))?.kind != .directory {
            try POSIX.makeDirectory(shard)
            try POSIX.syncDirectory(root)
        }
        try POSIX.renameFile(temporary, bundlePath(for: record.digest))
        try POSIX.syncDirectory(shard)
    }

    /// Writes `bytes` to `path` atomically: a temporary file, fsync, rename, fsync of the directory.
    func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(SystemCallError) {
        let temporary = temporaryPath()
        let fd = try POSIX.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        var renamed = false
        defer { if !renamed { POSIX.unlinkFile(temporary) } }
        do {
            defer { POSIX.closeFile(fd) }
            try withBytes(bytes) { (raw) throws(SystemCallError) in try POSIX.writeFully(fd, raw, at: 0) }
            try POSIX.sync(fd)
        }
        try POSIX.renameFile(temporary, path)
        renamed = true
        try POSIX.syncDirectory(directory)
    }
}
