import DepotCore
import DepotSystem
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One store instance's private temporary directory, `<root>/tmp/<random>/`, held by an exclusive
/// `flock` on its `lock` file for as long as the instance lives.
///
/// Several Depot instances may share one bundle directory. Each writes its partial files only in its own
/// workspace, and when opening removes only the workspaces whose lock it can take: their owner is gone
/// (the kernel drops the lock of a killed process), so what they hold is a crashed build's leftovers.
final class WorkspaceLock: Sendable {
    /// The workspace directory.
    let directory: String
    private let descriptor: Int32

    /// Removes abandoned workspaces (and loose files of older layouts) under `parent`, then creates and
    /// locks a new workspace.
    init(parent: String) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: parent, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: parent) {
            let path = parent + "/" + name
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue {
                try? files.removeItem(atPath: path)
                continue
            }
            guard let lock = try? POSIX.openFile(path + "/lock", O_RDWR) else {
                // A workspace whose lock file is missing was never completed: nobody owns it.
                try? files.removeItem(atPath: path)
                continue
            }
            defer { POSIX.closeFile(lock) }
            if (try? POSIX.lockExclusively(lock, wait: false)) == true {
                try? files.removeItem(atPath: path)
            }
        }
        let random = Hex.lowercase((0..<16).map { _ in UInt8.random(in: 0...255) })
        directory = parent + "/" + random
        try files.createDirectory(atPath: directory, withIntermediateDirectories: false)
        guard let descriptor = try? POSIX.openFile(directory + "/lock", O_RDWR | O_CREAT, mode: 0o600),
            (try? POSIX.lockExclusively(descriptor, wait: false)) == true
        else {
            throw BundleStoreError(.badRoot, "the bundle store's temporary directory cannot be locked")
        }
        self.descriptor = descriptor
    }

    deinit {
        POSIX.closeFile(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
