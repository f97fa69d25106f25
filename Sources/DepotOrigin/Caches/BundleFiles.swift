import DepotCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Open bundle files, one descriptor per bundle per event loop, kept open across requests.
///
/// Bundles never change once stored, so a descriptor can serve every later request (nginx's `open_file_cache`
/// idea). `NIOFileHandle` refuses concurrent use from two threads, so each event loop holds its own handles; a loop
/// only ever touches its own. Part of an ``OriginLoopState``.
final class BundleFiles {
    private var handles: [BundleDigest: OpenBundle] = [:]
    /// The bundle opened last: a run of requests for one bundle compares its digest's bytes instead of hashing
    /// them for the table (bundles never change, so what is kept stays valid).
    private var lastHandle: (digest: BundleDigest, open: OpenBundle)?

    /// Where bundle files come from when not all are on this disk; nil when they are (every stored file is served).
    let source: (any BundleFileSource)?
    /// Whether there is a source: asked on every answer, where binding or comparing the existential copies it.
    let hasSource: Bool

    /// An open bundle file and, with a source, the answers of this loop sending it now.
    private final class OpenBundle {
        let handle: NIOFileHandle
        /// Answers of this loop writing the file now: while there is one, the source keeps the file.
        var sending = 0
        /// Set when the file was removed from the disk while being sent: the handle is closed when nothing sends it.
        var closeWhenIdle = false

        init(_ handle: NIOFileHandle) { self.handle = handle }
    }

    /// A bundle file that is not on this disk: the source brings it in.
    struct NotHere: Error {}

    /// The files of one event loop; with `source`, files not on this disk are not opened (``NotHere``).
    init(source: (any BundleFileSource)? = nil) {
        self.source = source
        hasSource = source != nil
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

    /// Whether bundle `digest`'s file is open here (an open descriptor keeps a removed file's bytes).
    func isOpen(_ digest: BundleDigest) -> Bool {
        if let lastHandle, lastHandle.digest == digest { return true }
        return handles[digest] != nil
    }

    /// Notes an answer sending bundle `digest`'s file, which the answer opened (with a source: the file is kept, and
    /// its handle open, until the answer ends; the source hears of the first answer only).
    func answerStarted(_ digest: BundleDigest) {
        guard hasSource, let source, let open = openBundle(digest) else { return }
        open.sending += 1
        if open.sending == 1 { source.retainFile(digest) }
    }

    /// Notes an answer done sending bundle `digest`'s file; when none is left, the source hears of it, and the handle
    /// of a file removed meanwhile is closed.
    func answerEnded(_ digest: BundleDigest) {
        guard hasSource, let source, let open = openBundle(digest), open.sending > 0 else { return }
        open.sending -= 1
        guard open.sending == 0 else { return }
        source.releaseFile(digest)
        if open.closeWhenIdle { closeHandle(digest) }
    }

    /// Closes the handles of files removed from this disk (at once, or when the answers sending them end), so that
    /// their space is freed.
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

    deinit {
        // The files outlive every channel that used them (each handler holds its loop's state, and a buffered write
        // these files), so no write still needs these.
        for open in handles.values { try? open.handle.close() }
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension BundleFiles: Sendable {}
