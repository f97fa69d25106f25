import DepotCore
import DepotBundles
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where the packs of recorded versions are kept, by bundle digest, so delta bundles can be built between
/// versions later: a staged pack is copied to `<data>/packs/<digest>/` (copied beside it, then renamed
/// into place, so a crash leaves no half pack under a digest); packs imported from the content directory
/// are read where they are. A copy cut short (kill -9) leaves `.partial-<pid>-<n>`, removed by the next
/// shelf opened once that process is gone.
package final class PackShelf: Sendable {
    /// `<data>/packs`.
    package let root: String
    private let imported: Mutex<[BundleDigest: String]>

    /// A shelf under `root`, created if needed.
    package init(root: String) throws {
        self.root = root
        imported = Mutex([:])
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        removeAbandonedCopies()
    }

    /// Removes the partial copies of processes that no longer run.
    private func removeAbandonedCopies() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for name in names where name.hasPrefix(".partial-") {
            let fields = name.split(separator: "-")
            guard fields.count == 3, let pid = Int32(fields[1]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: (root as NSString).appendingPathComponent(name))
        }
    }

    /// Remembers where an imported pack lives.
    package func noteImported(digest: BundleDigest, directory: String) {
        imported.withLock { $0[digest] = directory }
    }

    /// The directory of the pack whose bundle has `digest`, if it is known.
    package func directory(for digest: BundleDigest) -> String? {
        if let directory = imported.withLock({ $0[digest] }) { return directory }
        let kept = (root as NSString).appendingPathComponent(digest.hex)
        return FileManager.default.fileExists(atPath: kept + "/pack.json") ? kept : nil
    }

    /// Copies the pack at `directory` onto the shelf under `digest`, unless it is there already.
    /// Blocking file work: call it off the event loops.
    package func keep(directory: String, digest: BundleDigest) throws {
        let target = (root as NSString).appendingPathComponent(digest.hex)
        let files = FileManager.default
        guard !files.fileExists(atPath: target) else { return }
        let partial = (root as NSString).appendingPathComponent(
            ".partial-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        do {
            try files.copyItem(atPath: directory, toPath: partial)
            try files.moveItem(atPath: partial, toPath: target)
        } catch {
            try? files.removeItem(atPath: partial)
            // Another stager may have placed the same pack meanwhile: that is the same bytes.
            if files.fileExists(atPath: target) { return }
            throw error
        }
    }

    /// Reads the pack of `digest` again (validated like any pack), if it is known.
    package func pack(digest: BundleDigest, limits: PackLimits) -> Pack? {
        guard let directory = directory(for: digest) else { return nil }
        return try? PackReader.read(directory: directory, limits: limits)
    }
}
