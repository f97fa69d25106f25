import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// How the file parts of bundle answers go out.
///
/// On plain TCP as file regions, which the kernel sends straight from the page cache (`sendfile`). Behind TLS
/// the bytes must be encrypted in user space, and NIOSSL takes buffers only (a file region there is an error),
/// so they are read into buffers, one chunk at a time (``BufferedBodyWrite``).
enum BundleBodyWriter: Sendable {
    /// File regions (sendfile): plain TCP.
    case fileRegions
    /// Buffers of at most `chunkBytes` read on `threadPool`: behind TLS.
    case buffers(FileChunkReader)

    /// The writer for a server: buffers when it speaks TLS.
    static func forServer(tls: Bool) -> BundleBodyWriter {
        tls ? .buffers(FileChunkReader(threadPool: .singleton, chunkBytes: FileChunkReader.defaultChunkBytes)) : .fileRegions
    }
}

/// Reads ranges of open bundle files into buffers on a thread pool, so that a read that waits for the disk never
/// holds up an event loop.
struct FileChunkReader: Sendable {
    /// The largest read: 128 KiB. A slow reader holds one chunk (and what TLS made of it) in the server, so the
    /// chunk bounds a connection's share of memory; larger chunks would cost thread-pool hops less often.
    static let defaultChunkBytes = 128 * 1024

    /// Where reads run.
    let threadPool: NIOThreadPool
    /// The largest read.
    let chunkBytes: Int

    /// Reads `count` bytes from `offset` of the open file `descriptor` into a new buffer; fails on an error or when
    /// the file ends early. The caller keeps the descriptor open until the future completes.
    func read(
        descriptor: CInt, offset: Int64, count: Int, allocator: ByteBufferAllocator, eventLoop: any EventLoop
    ) -> EventLoopFuture<ByteBuffer> {
        threadPool.runIfActive(eventLoop: eventLoop) {
            var buffer = allocator.buffer(capacity: count)
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                var done = 0
                while done < count {
                    let n = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw IOError(errnoCode: errno, reason: "pread")
                    }
                    if n == 0 { throw IOError(errnoCode: EIO, reason: "pread: the bundle file ends early") }
                    done += n
                }
                return done
            }
            return buffer
        }
    }
}
