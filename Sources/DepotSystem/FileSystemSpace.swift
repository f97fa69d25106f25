#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much room a filesystem has left, as `statvfs` reports it.
public enum FileSystemSpace {
    /// The bytes an unprivileged process may still write on the filesystem holding `path` (`f_bavail` blocks of
    /// `f_frsize` bytes; the blocks kept for root do not count). A product past `Int64.max` is reported as
    /// `Int64.max`.
    public static func availableBytes(_ path: String) throws(SystemCallError) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw SystemCallError("statvfs") }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return overflow ? Int64.max : Int64(clamping: bytes)
    }
}

extension SystemCallError {
    /// Whether the call failed because the filesystem is full (`ENOSPC`) or a quota is spent (`EDQUOT`).
    public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
}
