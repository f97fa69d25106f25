import DepotCore
import NIOCore

/// What one event loop keeps for the answers written below Hummingbird, shared by the connections of that loop and
/// touched only on it: open bundle files, small bundles' answers, the `Date` header, verified grants, the bundle
/// looked up last and the answer counters.
final class OriginLoopState {
    /// Open bundle files (and, with a file source, which of them answers are sending).
    let bundleFiles: BundleFiles
    /// Small bundles' bytes and whole answers, kept in memory.
    let smallAnswers = SmallAnswers()
    /// The `Date` header value, formatted once a second.
    var dateHeader = DateHeaderCache()
    /// Grants verified on this loop.
    var grantCache = GrantCache()
    /// The bundle this loop looked up last.
    var indexMemo = BundleIndex.Memo()
    /// This loop's counters of byte-path answers.
    var counters = BytePathRequestCounters()
    /// The storage of the last range answer's head, kept to write the next one's into: once that answer went out, the
    /// buffer is this loop's alone again and is cleared in place, with no allocation (while it is still being sent,
    /// clearing it gives the next head storage of its own).
    private var lastHead: ByteBuffer?

    /// The state of one event loop; with `source`, bundle files not on this disk are not opened
    /// (``BundleFiles/NotHere``).
    init(source: (any BundleFileSource)? = nil) {
        bundleFiles = BundleFiles(source: source)
    }

    /// Whether the bytes of bundle `digest` are at hand: kept in memory, open (an open descriptor keeps a removed
    /// file's bytes), or on this disk. Always true without a file source.
    func holds(_ digest: BundleDigest) -> Bool {
        guard let source = bundleFiles.source else { return true }
        return bundleFiles.isOpen(digest) || smallAnswers.keeps(digest) || source.holdsFile(digest)
    }

    /// A buffer for a response head: the last one kept (``keepHeadBuffer(_:)``), cleared, or a new one.
    func headBuffer(capacity: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        guard var buffer = lastHead.take() else { return allocator.buffer(capacity: capacity) }
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// Keeps the storage of a head being written, for the next one.
    func keepHeadBuffer(_ buffer: ByteBuffer) {
        lastHead = buffer
    }

    /// Lets go of the kept head's storage, so that the head being answered is its only holder and grows in place
    /// (a file's first bytes appended to it); ``keepHeadBuffer(_:)`` keeps it again, grown.
    func releaseHeadBuffer() {
        lastHead = nil
    }

    /// The kept bytes of a small bundle and its last whole 200 answer (see ``SmallAnswers/answer(digest:path:size:files:allocator:)``).
    func smallAnswer(digest: BundleDigest, path: String, size: Int64, allocator: ByteBufferAllocator) -> SmallBundleAnswer? {
        smallAnswers.answer(digest: digest, path: path, size: size, files: bundleFiles, allocator: allocator)
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension OriginLoopState: Sendable {}
