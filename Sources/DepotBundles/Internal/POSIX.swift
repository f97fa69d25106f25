#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, and the `errno` it left.
struct SystemCallError: Error, CustomStringConvertible {
    let call: String
    let code: Int32

    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// The kind of a directory entry, as `lstat` (never following links) reports it.
enum FileKind: Equatable {
    case regular, directory, symbolicLink, device, fifo, socket, unknown
}

/// The parts of `struct stat` that packs and the store look at.
struct FileStatus: Equatable {
    let kind: FileKind
    let size: Int64
    /// Modification time in nanoseconds since the epoch.
    let modificationTime: Int64
    let device: UInt64
    let inode: UInt64

    init(_ st: stat) {
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
    static func lstat(_ path: String) throws(SystemCallError) -> FileStatus {
        var st = stat()
        guard systemLstat(path, &st) == 0 else { throw SystemCallError("lstat") }
        return FileStatus(st)
    }

    /// `fstatat(directory, name, AT_SYMLINK_NOFOLLOW)`.
    static func lstat(in directory: Int32, name: [UInt8]) throws(SystemCallError) -> FileStatus {
        var st = stat()
        let result = withCString(name) { fstatat(directory, $0, &st, AT_SYMLINK_NOFOLLOW) }
        guard result == 0 else { throw SystemCallError("fstatat") }
        return FileStatus(st)
    }

    /// `fstat(descriptor)`.
    static func fstat(_ descriptor: Int32) throws(SystemCallError) -> FileStatus {
        var st = stat()
        guard systemFstat(descriptor, &st) == 0 else { throw SystemCallError("fstat") }
        return FileStatus(st)
    }
}

// The free functions share their names with `struct stat`'s neighbours; these aliases keep call sites readable.
@inline(__always) private func systemLstat(_ path: String, _ st: inout stat) -> Int32 { lstat(path, &st) }
@inline(__always) private func systemFstat(_ fd: Int32, _ st: inout stat) -> Int32 { fstat(fd, &st) }

/// Calls `body` with a NUL-terminated copy of raw name bytes.
func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    var terminated = bytes
    terminated.append(0)
    return terminated.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

/// `Array.withUnsafeBytes` with a typed error (the standard library's is `rethrows`).
func withBytes<R, E: Error>(
    _ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    try array.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
}

/// `Array.withUnsafeMutableBytes` with a typed error.
func withMutableBytes<R, E: Error>(
    _ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    try array.withUnsafeMutableBytes { raw in Result { () throws(E) -> R in try body(raw) } }.get()
}

/// Thin helpers over the descriptor calls, retrying on `EINTR`.
enum POSIX {
    static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw SystemCallError("open") }
        }
    }

    static func openAt(_ directory: Int32, _ name: [UInt8], _ flags: Int32) throws(SystemCallError) -> Int32 {
        while true {
            let fd = withCString(name) { openat(directory, $0, flags | O_CLOEXEC) }
            if fd >= 0 { return fd }
            if errno != EINTR { throw SystemCallError("openat") }
        }
    }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Reads up to `count` bytes; returns fewer only at end of file.
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        var total = 0
        while total < buffer.count {
            let n = read(fd, buffer.baseAddress! + total, buffer.count - total)
            if n > 0 {
                total += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw SystemCallError("read")
            }
        }
        return total
    }

    /// Reads exactly `buffer.count` bytes at `offset`; fails with `EIO` if the file ends first.
    static func readFully(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    )
        throws(SystemCallError)
    {
        var total = 0
        while total < buffer.count {
            let n = pread(fd, buffer.baseAddress! + total, buffer.count - total, off_t(offset) + off_t(total))
            if n > 0 {
                total += n
            } else if n == 0 {
                throw SystemCallError("pread (file ended early)", code: EIO)
            } else if errno != EINTR {
                throw SystemCallError("pread")
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemCallError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n >= 0 {
                done += n
            } else if errno != EINTR {
                throw SystemCallError("pwrite")
            }
        }
    }

    static func sync(_ fd: Int32) throws(SystemCallError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw SystemCallError("fsync") }
        }
    }

    /// Makes a directory's entries (a rename, a new file) durable.
    static func syncDirectory(_ path: String) throws(SystemCallError) {
        let fd = try openFile(path, O_RDONLY | O_DIRECTORY)
        defer { closeFile(fd) }
        try sync(fd)
    }

    static func truncate(_ fd: Int32, _ length: Int64) throws(SystemCallError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw SystemCallError("ftruncate") }
        }
    }

    static func renameFile(_ from: String, _ to: String) throws(SystemCallError) {
        guard rename(from, to) == 0 else { throw SystemCallError("rename") }
    }

    static func unlinkFile(_ path: String) {
        _ = unlink(path)
    }

    /// Creates a directory; an existing directory is fine.
    static func makeDirectory(_ path: String) throws(SystemCallError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        throw SystemCallError("mkdir")
    }

    /// The names in the directory open at `fd` (not `.` or `..`), as raw bytes. Leaves `fd` open.
    static func listDirectory(_ fd: Int32) throws(SystemCallError) -> [[UInt8]] {
        let copy = dup(fd)
        guard copy >= 0 else { throw SystemCallError("dup") }
        guard let dir = fdopendir(copy) else {
            let code = errno
            closeFile(copy)
            throw SystemCallError("fdopendir", code: code)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw SystemCallError("readdir") }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                let length = raw.firstIndex(of: 0) ?? raw.count
                return Array(raw.prefix(length))
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(name)
        }
        return names
    }
}
