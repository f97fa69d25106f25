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
    private var handles: [String: NIOFileHandle] = [:]

    /// The handle for a bundle file, opening it on first use.
    func handle(digest: String, path: String) throws -> NIOFileHandle {
        if let handle = handles[digest] { return handle }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open") }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        handles[digest] = handle
        return handle
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
