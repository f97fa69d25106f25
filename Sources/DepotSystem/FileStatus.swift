#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The kind of a directory entry, as `lstat` (never following links) reports it.
public enum FileKind: Sendable, Equatable {
    /// A regular file, a directory, a symbolic link, a character or block device, a FIFO, a socket, or else.
    case regular, directory, symbolicLink, device, fifo, socket, unknown
}

/// The parts of `struct stat` that packs and the store look at.
public struct FileStatus: Sendable, Equatable {
    /// What kind of entry it is.
    public let kind: FileKind
    /// Its size in bytes.
    public let size: Int64
    /// Modification time in nanoseconds since the epoch.
    public let modificationTime: Int64
    /// The device it lives on.
    public let device: UInt64
    /// Its inode number on that device.
    public let inode: UInt64

    /// The parts of `st`.
    public init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFCHR, S_IFBLK: kind = .device
        case S_IFIFO: kind = .fifo
        case S_IFSOCK: kind = .socket
        default: kind = .unknown
        }
        size = Int64(st.st_size)
        #if canImport(Darwin)
        modificationTime = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        #else
        modificationTime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        #endif
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// `lstat(path)`: never follows a final symbolic link.
    public static func lstat(_ path: String) throws(SystemCallError) -> FileStatus {
        var st = stat()
        guard systemLstat(path, &st) == 0 else { throw SystemCallError("lstat") }
        return FileStatus(st)
    }

    /// `fstatat(directory, name, AT_SYMLINK_NOFOLLOW)`.
    public static func lstat(in directory: Int32, name: [UInt8]) throws(SystemCallError) -> FileStatus {
        var st = stat()
        let result = withCString(name) { fstatat(directory, $0, &st, AT_SYMLINK_NOFOLLOW) }
        guard result == 0 else { throw SystemCallError("fstatat") }
        return FileStatus(st)
    }

    /// `fstat(descriptor)`.
    public static func fstat(_ descriptor: Int32) throws(SystemCallError) -> FileStatus {
        var st = stat()
        guard systemFstat(descriptor, &st) == 0 else { throw SystemCallError("fstat") }
        return FileStatus(st)
    }
}

// The free functions share their names with `struct stat`'s neighbours; these aliases keep call sites readable.
@inline(__always) private func systemLstat(_ path: String, _ st: inout stat) -> Int32 { lstat(path, &st) }
@inline(__always) private func systemFstat(_ fd: Int32, _ st: inout stat) -> Int32 { fstat(fd, &st) }
