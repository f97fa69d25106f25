#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for files that must be whole on disk before anyone sees them.
enum DurableFile {
    /// Why a call failed: the operation and `errno`.
    struct Failure: Error {
        var operation: String
        var errno: Int32
        var isAlreadyPresent: Bool { errno == EEXIST || errno == ENOTEMPTY }
    }

    /// Creates `path` (which must not exist) with `mode`, writes `bytes` and fsyncs it.
    static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(operation: "open", errno: errno) }
        defer { close(fd) }
        // The umask may have narrowed the mode; a key file must be exactly 0600, a certificate readable.
        guard fchmod(fd, mode) == 0 else { throw Failure(operation: "chmod", errno: errno) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure(operation: "write", errno: errno)
            }
            written += result
        }
        guard fsync(fd) == 0 else { throw Failure(operation: "fsync", errno: errno) }
    }

    /// Makes a directory with `mode`.
    static func makeDirectory(_ path: String, mode: mode_t) throws(Failure) {
        guard mkdir(path, mode) == 0 else { throw Failure(operation: "mkdir", errno: errno) }
    }

    /// Renames `from` to `to`; fails with `isAlreadyPresent` when `to` is a non-empty directory.
    static func move(_ from: String, to: String) throws(Failure) {
        guard rename(from, to) == 0 else { throw Failure(operation: "rename", errno: errno) }
    }

    /// Fsyncs a directory so that entries created or renamed in it survive a crash.
    static func syncDirectory(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(operation: "fsync", errno: errno) }
    }
}
