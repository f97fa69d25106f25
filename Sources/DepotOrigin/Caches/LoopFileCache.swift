import DepotCore
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

    private var handles: [BundleDigest: NIOFileHandle] = [:]
    private var smallAnswers: [BundleDigest: SmallBundleAnswer] = [:]
    private var smallBytes = 0
    /// The bundle asked for last and what is kept for it: a run of requests for one bundle compares its digest's
    /// bytes instead of hashing them for each table (bundles never change, so what is kept stays valid).
    private var lastHandle: (digest: BundleDigest, handle: NIOFileHandle)?
    private var lastSmall: (digest: BundleDigest, answer: SmallBundleAnswer)?

    /// The handle for a bundle file, opening it on first use.
    func handle(digest: BundleDigest, path: String) throws -> NIOFileHandle {
        if let lastHandle, lastHandle.digest == digest { return lastHandle.handle }
        if let handle = handles[digest] {
            lastHandle = (digest, handle)
            return handle
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open") }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        handles[digest] = handle
        return handle
    }

    /// The kept bytes of a small bundle and its last whole 200 answer; nil for a larger bundle, a full cache or a
    /// read error. Looked up first: a small bundle's answer needs no descriptor.
    ///
    /// Bundles never change, so the bytes stay valid; sending them with the head in one write saves the
    /// separate segment and system call that a head followed by `sendfile` costs for small bodies.
    func smallAnswer(digest: BundleDigest, path: String, size: Int64, allocator: ByteBufferAllocator) -> SmallBundleAnswer? {
        guard size <= Self.smallBundleLimit else { return nil }
        if let lastSmall, lastSmall.digest == digest { return lastSmall.answer }
        if let answer = smallAnswers[digest] {
            lastSmall = (digest, answer)
            return answer
        }
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
        let answer = SmallBundleAnswer(body: buffer)
        smallAnswers[digest] = answer
        smallBytes += Int(size)
        return answer
    }

    deinit {
        // The cache outlives every channel that used it (each handler holds it), so no write still needs these.
        for handle in handles.values { try? handle.close() }
    }

    /// The date header value for `now`, formatted once per second.
    var dateCache = DateHeaderCache()

    /// Grants verified on this loop.
    var grantCache = GrantCache()

    /// The bundle this loop looked up last.
    var bundleMemo = BundleIndex.Memo()

    /// This loop's counters of byte-path answers.
    var requestCounters = BytePathRequestCounters()
}

/// A small bundle's bytes, kept with its whole unconditional 200 answer (head and body in one buffer) as last
/// built: for the common request (a keep-alive HTTP/1.1 `GET` with no conditional field) that buffer is written as
/// it is; it is rebuilt when its `Date` changes (once a second at most), and the body is a view of it, so the
/// bytes are kept once.
final class SmallBundleAnswer {
    /// The buffer: an answer's head (none before the first answer), then the bundle's bytes.
    private var answer: ByteBuffer
    /// Where the bundle's bytes start in `answer`, and how many there are.
    private var bodyStart = 0
    private let size: Int
    /// The second whose `Date` the head carries; -1 while there is no head.
    private var second: Int64 = -1

    /// The answer for a bundle whose bytes are `body`.
    init(body: ByteBuffer) {
        answer = body
        size = body.readableBytes
    }

    /// The bundle's bytes.
    var body: ByteBuffer {
        answer.getSlice(at: answer.readerIndex + bodyStart, length: size)!
    }

    /// The whole 200 answer: `headPrefix` (status line and fields), `Date: date`, the empty line, the body.
    func keepAliveAnswer(headPrefix: [UInt8], date: String, second: Int64, allocator: ByteBufferAllocator) -> ByteBuffer {
        if second == self.second { return answer }
        var buffer = allocator.buffer(capacity: headPrefix.count + 40 + size)
        ResponseHeadBytes.write(into: &buffer) { sink in
            sink.add(headPrefix)
            sink.field("Date", date)
            sink.add("\r\n")
        }
        let start = buffer.readableBytes
        var bytes = body
        buffer.writeBuffer(&bytes)
        (answer, bodyStart, self.second) = (buffer, start, second)
        return buffer
    }
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
