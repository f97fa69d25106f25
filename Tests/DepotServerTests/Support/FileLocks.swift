import Foundation
import CoreFoundation
import Glibc

/// Whether a process holds a `flock` on a file, read from `/proc/locks` without taking the lock (taking it, even
/// for a moment, could make the server's own writer find it held).
enum FileLocks {
    static func isLocked(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
            return false
        }
        let inode = ":\(status.st_ino) "
        return locks.split(separator: "\n").contains { $0.contains("FLOCK") && $0.contains(inode) }
    }
}
