import DepotCore
import Dispatch
import Synchronization

/// What a store's local cache has done since it opened.
package struct BundleCacheCounts: Sendable, Equatable {
    /// Sends of a bundle file found on this disk (counted when an event loop starts sending a file it is not sending
    /// already: a run of overlapping answers of one file on one loop counts once).
    package var hits = 0
    /// Bundle files brought in from the object store because a request asked for one not on this disk.
    package var misses = 0
    /// Bundle files removed to keep within the budget, and their bytes.
    package var evictions = 0
    /// The bytes of the files removed.
    package var evictedBytes: Int64 = 0
    /// The bytes of the bundle files on this disk now.
    package var bytes: Int64 = 0

    /// No activity yet.
    package init() {}
}

/// The bundle files an instance keeps on its own disk when the object store holds every bundle: how large each is,
/// when an answer last sent it, and how many answers are sending it now. With a budget, whenever the total goes over
/// it the least recently used files no answer is sending (and no request waits for) are removed, and `onEvicted`
/// tells the byte path to close what it keeps open of them (an open descriptor keeps a removed file's bytes, and its space, until closed).
final class LocalBundleCache: Sendable {
    private struct Entry {
        var size: Int64
        /// When an answer last sent the file (`DispatchTime` nanoseconds), or the order it was found in at start.
        var lastUse: UInt64
        var senders: Int
    }

    private struct State {
        var entries: [BundleDigest: Entry] = [:]
        /// Requests waiting to send a file (brought in for them, or being brought in): such a file is not removed,
        /// whether or not it is on this disk yet.
        var reservations: [BundleDigest: Int] = [:]
        var counts = BundleCacheCounts()
        var onEvicted: (@Sendable ([BundleDigest]) -> Void)?
    }

    /// The most bytes of bundle files kept; nil keeps every file.
    let budget: Int64?
    private let state = Mutex(State())
    private let remove: @Sendable (BundleDigest) -> Void

    /// A cache of at most `budget` bytes (nil: unbounded) whose evicted files `remove` deletes.
    init(budget: Int64?, remove: @escaping @Sendable (BundleDigest) -> Void) {
        self.budget = budget
        self.remove = remove
    }

    /// What the cache did so far, and the bytes it holds.
    var counts: BundleCacheCounts { state.withLock { $0.counts } }

    /// Whether the cache holds `digest`'s file.
    func holds(_ digest: BundleDigest) -> Bool { state.withLock { $0.entries[digest] != nil } }

    /// Sets what is told the digests of files removed to keep within the budget.
    func whenEvicted(_ action: @escaping @Sendable ([BundleDigest]) -> Void) {
        state.withLock { $0.onEvicted = action }
    }

    /// Notes files found on disk at start, least recently modified first, then trims to the budget.
    func adopt(_ files: [(digest: BundleDigest, size: Int64)]) {
        state.withLock { state in
            for (order, file) in files.enumerated() where state.entries[file.digest] == nil {
                state.entries[file.digest] = Entry(size: file.size, lastUse: UInt64(order), senders: 0)
                state.counts.bytes += file.size
            }
        }
        trim()
    }

    /// Notes a file placed in the store (built, or fetched: `fetchedForRequest` counts it as a miss) as just used,
    /// then trims to the budget.
    func admit(_ digest: BundleDigest, size: Int64, fetchedForRequest: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            if fetchedForRequest { state.counts.misses += 1 }
            if state.entries[digest] == nil {
                state.entries[digest] = Entry(size: size, lastUse: now, senders: 0)
                state.counts.bytes += size
            } else {
                state.entries[digest]?.lastUse = now
            }
        }
        trim()
    }

    /// Notes a request that will send `digest`'s file once it is on this disk: until ``unreserve(_:)``, the file is
    /// not removed (it may not be here yet; it is kept from the moment it arrives).
    func reserve(_ digest: BundleDigest) {
        state.withLock { $0.reservations[digest, default: 0] += 1 }
    }

    /// Notes that a request ``reserve(_:)`` named no longer waits for the file (it sends it, as an answer holding it,
    /// or gave up), then trims to the budget if it is over.
    func unreserve(_ digest: BundleDigest) {
        let over = state.withLock { state -> Bool in
            if let count = state.reservations[digest] {
                state.reservations[digest] = count > 1 ? count - 1 : nil
            }
            return budget.map { state.counts.bytes > $0 } ?? false
        }
        if over { trim() }
    }

    /// Notes an answer starting to send `digest`'s file: it is not removed until ``release(_:)``. False when the
    /// cache does not hold it (the sender then holds the only reference, its open descriptor).
    func retain(_ digest: BundleDigest) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state -> Bool in
            guard var entry = state.entries[digest] else { return false }
            entry.lastUse = now
            entry.senders += 1
            state.entries[digest] = entry
            state.counts.hits += 1
            return true
        }
    }

    /// Notes an answer done sending `digest`'s file (it was used until now), then trims to the budget if it is over.
    func release(_ digest: BundleDigest) {
        let now = DispatchTime.now().uptimeNanoseconds
        let over = state.withLock { state -> Bool in
            if let senders = state.entries[digest]?.senders, senders > 0 {
                state.entries[digest]?.senders = senders - 1
                state.entries[digest]?.lastUse = now
            }
            return budget.map { state.counts.bytes > $0 } ?? false
        }
        if over { trim() }
    }

    /// Forgets a file that is no longer on disk (removed by the storage collector, or lost).
    func forget(_ digest: BundleDigest) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: digest) { state.counts.bytes -= entry.size }
        }
    }

    /// Removes the least recently used files no answer is sending (nor waits for) until the total is within the
    /// budget.
    private func trim() {
        guard let budget else { return }
        let (victims, onEvicted) = state.withLock { state -> ([BundleDigest], (@Sendable ([BundleDigest]) -> Void)?) in
            guard state.counts.bytes > budget else { return ([], nil) }
            let candidates = state.entries.filter { $0.value.senders == 0 && state.reservations[$0.key] == nil }
                .sorted { $0.value.lastUse < $1.value.lastUse }
            var victims: [BundleDigest] = []
            for (digest, entry) in candidates where state.counts.bytes > budget {
                state.entries[digest] = nil
                state.counts.bytes -= entry.size
                state.counts.evictions += 1
                state.counts.evictedBytes += entry.size
                victims.append(digest)
            }
            return (victims, state.onEvicted)
        }
        guard !victims.isEmpty else { return }
        for digest in victims { remove(digest) }
        onEvicted?(victims)
    }
}
