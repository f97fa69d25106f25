import Foundation

/// Whether a process holds a `flock` on a file, read from `/proc/locks` without taking the lock (taking it, even
/// for a moment, could make the server's own writer find it held).
enum FileLocks {
    static func isLocked(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
            let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return false }
        return locks.split(separator: "\n").contains { $0.contains("FLOCK") && $0.contains(":\(inode) ") }
    }
}
