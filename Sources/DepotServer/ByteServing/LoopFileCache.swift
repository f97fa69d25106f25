import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Open bundle files, one descriptor per bundle per event loop, kept open across requests.
///
/// Bundles never change once stored, so a descriptor can serve every later request (nginx's
/// `open_file_cache` idea). `NIOFileHandle` refuses concurrent use from two threads, so each event loop
/// holds its own handles; a loop only ever touches its own cache.
final class LoopFileCache {
    /// Bundles up to this size are also kept in memory and sent with their head in one write.
    static let smallBundleLimit: Int64 = 64 * 1024
    /// Most bytes of small bundles one loop keeps.
    static let smallBundleBudget = 32 * 1024 * 1024

    private var handles: [String: NIOFileHandle] = [:]
    private var smallBodies: [String: ByteBuffer] = [:]
    private var smallBytes = 0

    /// The handle for a bundle file, opening it on first use.
    func handle(digest: String, path: String) throws -> NIOFileHandle {
        if let handle = handles[digest] { return handle }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open") }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        handles[digest] = handle
        return handle
    }

    /// The whole bytes of a small bundle, read once; nil for a larger bundle, a full cache or a read error.
    ///
    /// Bundles never change, so the bytes stay valid; sending them with the head in one `writev` saves the
    /// separate segment and system call that a head followed by `sendfile` costs for small bodies.
    func smallBody(digest: String, path: String, size: Int64, allocator: ByteBufferAllocator) -> ByteBuffer? {
        if let body = smallBodies[digest] { return body }
        guard size <= Self.smallBundleLimit, smallBytes + Int(size) <= Self.smallBundleBudget,
            let handle = try? handle(digest: digest, path: path)
        else { return nil }
        var buffer = allocator.buffer(capacity: Int(size))
        let complete: Bool? = try? handle.withUnsafeFileDescriptor { descriptor in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(size)) { raw in
                var done = 0
                while done < Int(size) {
                    let n = pread(descriptor, raw.baseAddress! + done, Int(size) - done, off_t(done))
                    if n <= 0 { break }
                    done += n
                }
                return done
            }
            return buffer.readableBytes == Int(size)
        }
        guard complete == true else { return nil }
        smallBodies[digest] = buffer
        smallBytes += Int(size)
        return buffer
    }

    deinit {
        // The cache outlives every channel that used it (each handler holds it), so no write still needs these.
        for handle in handles.values { try? handle.close() }
    }

    /// The date header value for `now`, formatted once per second.
    var dateCache = DateHeaderCache()

    /// Grants verified on this loop.
    var grantCache = GrantCache()
}

/// The per-loop file caches of one server.
final class FileCacheRegistry: Sendable {
    private let caches = NIOLockedValueBox<[ObjectIdentifier: NIOLoopBound<LoopFileCache>]>([:])

    /// The cache of the loop running the caller; call on that loop.
    func cache(for eventLoop: any EventLoop) -> LoopFileCache {
        let key = ObjectIdentifier(eventLoop)
        let bound = caches.withLockedValue { caches in
            if let bound = caches[key] { return bound }
            let bound = NIOLoopBound(LoopFileCache(), eventLoop: eventLoop)
            caches[key] = bound
            return bound
        }
        return bound.value
    }
}
