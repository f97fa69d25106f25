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

    private var handles: [BundleDigest: OpenBundle] = [:]
    private var smallAnswers: [BundleDigest: SmallBundleAnswer] = [:]
    private var smallBytes = 0
    /// The bundle asked for last and what is kept for it: a run of requests for one bundle compares its digest's
    /// bytes instead of hashing them for each table (bundles never change, so what is kept stays valid).
    private var lastHandle: (digest: BundleDigest, open: OpenBundle)?
    private var lastSmall: (digest: BundleDigest, answer: SmallBundleAnswer)?

    /// Where bundle files come from when not all are on this disk; nil when they are (every stored file is served).
    let source: (any BundleFileSource)?

    /// An open bundle file and, with a source, the answers of this loop sending it now.
    private final class OpenBundle {
        let handle: NIOFileHandle
        /// Answers of this loop writing the file now: while there is one, the source keeps the file.
        var sending = 0
        /// Set when the file was removed from the disk while being sent: the handle is closed when nothing sends it.
        var closeWhenIdle = false

        init(_ handle: NIOFileHandle) { self.handle = handle }
    }

    /// A cache for one event loop; with `source`, files not on this disk are not opened (``NotHere``).
    init(source: (any BundleFileSource)? = nil) {
        self.source = source
    }

    /// The handle for a bundle file, opening it on first use. With a source, a file not on this disk throws
    /// ``NotHere``.
    func handle(digest: BundleDigest, path: String) throws -> NIOFileHandle {
        try open(digest: digest, path: path).handle
    }

    private func open(digest: BundleDigest, path: String) throws -> OpenBundle {
        if let lastHandle, lastHandle.digest == digest { return lastHandle.open }
        if let open = handles[digest] {
            lastHandle = (digest, open)
            return open
        }
        if let source, !source.holdsFile(digest) { throw NotHere() }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { source?.forgetFile(digest) }
            throw IOError(errnoCode: code, reason: "open")
        }
        let open = OpenBundle(NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor))
        handles[digest] = open
        return open
    }

    /// A bundle file that is not on this disk: the source brings it in.
    struct NotHere: Error {}

    /// Whether the bytes of bundle `digest` are at hand: kept in memory, open (an open descriptor keeps a removed
    /// file's bytes), or on this disk. Always true without a source.
    func holds(_ digest: BundleDigest) -> Bool {
        guard let source else { return true }
        if let lastHandle, lastHandle.digest == digest { return true }
        return smallAnswers[digest] != nil || handles[digest] != nil || source.holdsFile(digest)
    }

    /// Notes an answer sending bundle `digest`'s file, which the answer opened (with a source: the file is kept, and
    /// its handle open, until the answer ends; the source hears of the first answer only).
    func answerStarted(_ digest: BundleDigest) {
        guard let source, let open = openBundle(digest) else { return }
        open.sending += 1
        if open.sending == 1 { source.retainFile(digest) }
    }

    /// Notes an answer done sending bundle `digest`'s file; when none is left, the source hears of it, and the handle
    /// of a file removed meanwhile is closed.
    func answerEnded(_ digest: BundleDigest) {
        guard let source, let open = openBundle(digest), open.sending > 0 else { return }
        open.sending -= 1
        guard open.sending == 0 else { return }
        source.releaseFile(digest)
        if open.closeWhenIdle { closeHandle(digest) }
    }

    /// Closes the handles of files removed from this disk (at once, or when the answers sending them end), so that
    /// their space is freed. A small bundle's kept bytes stay.
    func closeHandles(of digests: [BundleDigest]) {
        for digest in digests {
            guard let open = handles[digest] else { continue }
            if open.sending == 0 {
                closeHandle(digest)
            } else {
                open.closeWhenIdle = true
            }
        }
    }

    private func openBundle(_ digest: BundleDigest) -> OpenBundle? {
        if let lastHandle, lastHandle.digest == digest { return lastHandle.open }
        return handles[digest]
    }

    private func closeHandle(_ digest: BundleDigest) {
        guard let open = handles.removeValue(forKey: digest) else { return }
        if lastHandle?.digest == digest { lastHandle = nil }
        try? open.handle.close()
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
        for open in handles.values { try? open.handle.close() }
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
    private let caches = NIOLockedValueBox<[ObjectIdentifier: (loop: any EventLoop, cache: NIOLoopBound<LoopFileCache>)]>([:])
    private let source: (any BundleFileSource)?

    /// Caches whose files come from `source`, when given (see ``LoopFileCache/source``).
    init(source: (any BundleFileSource)? = nil) {
        self.source = source
        source?.whenFilesEvicted { [weak self] digests in self?.closeHandles(of: digests) }
    }

    /// The cache of the loop running the caller; call on that loop.
    func cache(for eventLoop: any EventLoop) -> LoopFileCache {
        let key = ObjectIdentifier(eventLoop)
        let bound = caches.withLockedValue { caches in
            if let entry = caches[key] { return entry.cache }
            let bound = NIOLoopBound(LoopFileCache(source: source), eventLoop: eventLoop)
            caches[key] = (eventLoop, bound)
            return bound
        }
        return bound.value
    }

    /// Asks every loop's cache to close its handles of the files `digests` names.
    func closeHandles(of digests: [BundleDigest]) {
        for (loop, bound) in caches.withLockedValue({ Array($0.values) }) {
            loop.execute { bound.value.closeHandles(of: digests) }
        }
    }
}
