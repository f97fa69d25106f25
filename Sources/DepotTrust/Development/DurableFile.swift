import DepotSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that must be whole on disk before anyone sees them, over DepotSystem's calls.
enum DurableFile {
    /// Why a call failed: the operation and `errno`.
    struct Failure: Error {
        var operation: String
        var errno: Int32
        var isAlreadyPresent: Bool { errno == EEXIST || errno == ENOTEMPTY }

        init(_ failure: SystemCallError) {
            operation = failure.call
            errno = failure.code
        }
    }

    /// Creates `path` (which must not exist) with `mode`, writes `bytes` and fsyncs it.
    static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(Failure) {
        do {
            let fd = try POSIX.openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            defer { POSIX.closeFile(fd) }
            // The umask may have narrowed the mode; a key file must be exactly 0600, a certificate readable.
            try POSIX.changeMode(fd, mode)
            try withBytes(bytes) { (raw) throws(SystemCallError) in try POSIX.writeFully(fd, raw, at: 0) }
            try POSIX.sync(fd)
        } catch {
            throw Failure(error)
        }
    }

    /// Makes a directory with `mode`; one already there is a failure.
    static func makeDirectory(_ path: String, mode: mode_t) throws(Failure) {
        do { try POSIX.createDirectory(path, mode: mode) } catch { throw Failure(error) }
    }

    /// Renames `from` to `to`; fails with `isAlreadyPresent` when `to` is a non-empty directory.
    static func move(_ from: String, to: String) throws(Failure) {
        do { try POSIX.renameFile(from, to) } catch { throw Failure(error) }
    }

    /// Fsyncs a directory so that entries created or renamed in it survive a crash.
    static func syncDirectory(_ path: String) throws(Failure) {
        do { try POSIX.syncDirectory(path) } catch { throw Failure(error) }
    }
}
