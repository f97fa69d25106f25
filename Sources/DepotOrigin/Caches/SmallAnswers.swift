import DepotCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The bytes of small bundles, kept in memory on one event loop with their last whole 200 answer
/// (``SmallBundleAnswer``), up to a budget. Part of an ``OriginLoopState``.
///
/// Bundles never change, so the bytes stay valid; sending them with the head in one write saves the separate
/// segment and system call that a head followed by `sendfile` costs for small bodies.
final class SmallAnswers {
    /// Bundles up to this size are kept in memory and sent with their head in one write.
    static let sizeLimit: Int64 = 64 * 1024
    /// Most bytes of small bundles one loop keeps.
    static let budget = 32 * 1024 * 1024

    private var answers: [BundleDigest: SmallBundleAnswer] = [:]
    private var bytes = 0
    /// The bundle asked for last and its answer: a run of requests for one bundle compares its digest's bytes
    /// instead of hashing them for the table.
    private var last: (digest: BundleDigest, answer: SmallBundleAnswer)?

    /// Nothing kept yet.
    init() {}

    /// Whether bundle `digest`'s bytes are kept.
    func keeps(_ digest: BundleDigest) -> Bool {
        answers[digest] != nil
    }

    /// The kept bytes of a small bundle and its last whole 200 answer, read from its file in `files` the first time;
    /// nil for a larger bundle, a full budget or a read error. Looked up first: a small bundle's answer needs no
    /// descriptor.
    func answer(
        digest: BundleDigest, path: String, size: Int64, files: BundleFiles, allocator: ByteBufferAllocator
    ) -> SmallBundleAnswer? {
        guard size <= Self.sizeLimit else { return nil }
        if let last, last.digest == digest { return last.answer }
        if let answer = answers[digest] {
            last = (digest, answer)
            return answer
        }
        guard bytes + Int(size) <= Self.budget, let handle = try? files.handle(digest: digest, path: path) else {
            return nil
        }
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
        answers[digest] = answer
        bytes += Int(size)
        return answer
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension SmallAnswers: Sendable {}
