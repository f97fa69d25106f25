#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive file open for reading at any offset (`pread`), so readers never share a file position.
final class InputFile {
    private let descriptor: Int32
    /// The file's size when it was opened.
    let size: Int64

    /// Opens `path` read-only; it must be a regular file.
    init(path: String) throws(ArchiveError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ArchiveError(.io, "cannot open the archive: \(systemErrorText())") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            systemClose(descriptor)
            throw ArchiveError(.io, "the archive is not a regular file")
        }
        size = Int64(status.st_size)
    }

    /// Closes the file.
    func close() {
        systemClose(descriptor)
    }

    /// Reads up to `buffer.count` bytes at `offset`, fewer only at the end of the file; returns the count.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var done = 0
        while done < buffer.count {
            let result = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                throw ArchiveError(.io, "reading the archive failed: \(systemErrorText())")
            }
            if result == 0 { break }
            done += result
        }
        return done
    }

    /// Reads up to `bytes.count` bytes at `offset` into an array; returns the count.
    func read(at offset: Int64, into bytes: inout [UInt8]) throws(ArchiveError) -> Int {
        let result: Result<Int, ArchiveError> = bytes.withUnsafeMutableBytes { buffer in
            do throws(ArchiveError) { return .success(try read(at: offset, into: buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Exactly `count` bytes at `offset`, or `truncated` naming `what` was being read.
    func bytes(at offset: Int64, count: Int, what: String, entry: String? = nil) throws(ArchiveError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard offset >= 0, try read(at: offset, into: &bytes) == count else {
            throw ArchiveError(.truncated, entry: entry, "the archive ends inside \(what)")
        }
        return bytes
    }
}
