#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin helpers over the descriptor calls, retrying on `EINTR`.
public enum POSIX {
    /// `open(path, flags | O_CLOEXEC, mode)`.
    public static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw SystemCallError("open") }
        }
    }

    /// `openat(directory, name, flags | O_CLOEXEC)`.
    public static func openAt(_ directory: Int32, _ name: [UInt8], _ flags: Int32) throws(SystemCallError) -> Int32 {
        while true {
            let fd = withCString(name) { openat(directory, $0, flags | O_CLOEXEC) }
            if fd >= 0 { return fd }
            if errno != EINTR { throw SystemCallError("openat") }
        }
    }

    /// `close(fd)`; its result is not looked at.
    public static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Reads up to `count` bytes; returns fewer only at end of file.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
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
    public static func readFully(
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
    public static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemCallError) {
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

    /// `fsync(fd)`.
    public static func sync(_ fd: Int32) throws(SystemCallError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw SystemCallError("fsync") }
        }
    }

    /// Makes a directory's entries (a rename, a new file) durable.
    public static func syncDirectory(_ path: String) throws(SystemCallError) {
        let fd = try openFile(path, O_RDONLY | O_DIRECTORY)
        defer { closeFile(fd) }
        try sync(fd)
    }

    /// `ftruncate(fd, length)`.
    public static func truncate(_ fd: Int32, _ length: Int64) throws(SystemCallError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw SystemCallError("ftruncate") }
        }
    }

    /// `rename(from, to)`.
    public static func renameFile(_ from: String, _ to: String) throws(SystemCallError) {
        guard rename(from, to) == 0 else { throw SystemCallError("rename") }
    }

    /// `unlink(path)`; a missing file is not an error.
    public static func unlinkFile(_ path: String) {
        _ = unlink(path)
    }

    /// Creates a directory with `mode` that must not exist yet (`EEXIST` otherwise).
    public static func createDirectory(_ path: String, mode: mode_t) throws(SystemCallError) {
        guard mkdir(path, mode) == 0 else { throw SystemCallError("mkdir") }
    }

    /// Creates `path` (which must not exist) with exactly `mode` (whatever the umask), writes `bytes` and fsyncs
    /// it: the file is whole on disk before this returns.
    public static func createFile(_ path: String, bytes: [UInt8], mode: mode_t) throws(SystemCallError) {
        let fd = try openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        defer { closeFile(fd) }
        try changeMode(fd, mode)
        try withBytes(bytes) { (raw) throws(SystemCallError) in try writeFully(fd, raw, at: 0) }
        try sync(fd)
    }

    /// Sets the permission bits of the file open at `fd` (the umask may have narrowed those it was created with).
    public static func changeMode(_ fd: Int32, _ mode: mode_t) throws(SystemCallError) {
        guard fchmod(fd, mode) == 0 else { throw SystemCallError("fchmod") }
    }

    /// Takes the exclusive `flock` of the file open at `fd`: waits for it when `wait`, else returns false at once
    /// when another open file description holds it. The kernel releases it when the last descriptor closes.
    public static func lockExclusively(_ fd: Int32, wait: Bool) throws(SystemCallError) -> Bool {
        while flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK && !wait { return false }
            throw SystemCallError("flock")
        }
        return true
    }

    /// Releases the `flock` of the file open at `fd`.
    public static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    /// `unlink(path)`; a file already gone is fine, any other failure is thrown.
    public static func removeFile(_ path: String) throws(SystemCallError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemCallError("unlink") }
    }

    /// Creates a directory; an existing directory is fine.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(SystemCallError) {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        throw SystemCallError("mkdir")
    }

    /// The names in the directory open at `fd` (not `.` or `..`), as raw bytes. Leaves `fd` open.
    public static func listDirectory(_ fd: Int32) throws(SystemCallError) -> [[UInt8]] {
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
