@testable import DepotBundles
import DepotCore
import Synchronization
import Testing

/// The local cache's choice of what to remove: least recently sent first, never a file being sent or one a request
/// waits for, and only while the total is over the budget.
@Suite struct LocalBundleCacheTests {
    /// A digest made of one repeated byte.
    static func digest(_ byte: UInt8) -> BundleDigest { BundleDigest(bytes: Array(repeating: byte, count: 32))! }

    /// Digests in the order they were reported.
    final class Log: Sendable {
        private let digests = Mutex<[BundleDigest]>([])
        func append(_ more: [BundleDigest]) { digests.withLock { $0.append(contentsOf: more) } }
        func withLock<R>(_ body: ([BundleDigest]) -> R) -> R { digests.withLock { body($0) } }
    }

    /// A cache of `budget` bytes that records what it removes, and what it told the byte path.
    static func cache(budget: Int64?) -> (LocalBundleCache, removed: Log, told: Log) {
        let removed = Log()
        let told = Log()
        let cache = LocalBundleCache(budget: budget) { digest in removed.append([digest]) }
        cache.whenEvicted { digests in told.append(digests) }
        return (cache, removed, told)
    }

    @Test func theLeastRecentlySentFileGoesFirstAndOnlyWhileOverTheBudget() {
        let (cache, removed, told) = Self.cache(budget: 300)
        let (a, b, c, d) = (Self.digest(1), Self.digest(2), Self.digest(3), Self.digest(4))
        cache.adopt([(a, 100), (b, 100), (c, 100)])
        #expect(removed.withLock { $0 }.isEmpty)
        // b is sent, then a: c is now the least recently sent, then b.
        for digest in [b, a] {
            #expect(cache.retain(digest))
            cache.release(digest)
        }
        cache.admit(d, size: 150)
        #expect(removed.withLock { $0 } == [c, b])
        #expect(told.withLock { $0 } == [c, b])
        #expect(cache.counts.bytes == 250)
        #expect(cache.counts.evictions == 2 && cache.counts.evictedBytes == 200)
        #expect(!cache.holds(c) && cache.holds(a) && cache.holds(d))
        #expect(cache.counts.hits == 2)
    }

    @Test func aFileBeingSentStaysUntilItsAnswerEnds() {
        let (cache, removed, _) = Self.cache(budget: 100)
        let (a, b) = (Self.digest(1), Self.digest(2))
        cache.adopt([(a, 100)])
        #expect(cache.retain(a))
        cache.admit(b, size: 100)
        // b is the newest, but a is being sent: b goes, not a.
        #expect(removed.withLock { $0 } == [b])
        cache.admit(b, size: 100)
        #expect(removed.withLock { $0 } == [b, b])
        cache.release(a)
        cache.admit(b, size: 100)
        #expect(removed.withLock { $0 } == [b, b, a])
    }

    @Test func aFileRequestsWaitForStaysUntilTheLastOfThemNoLongerWaits() {
        let (cache, removed, _) = Self.cache(budget: 100)
        let (a, b) = (Self.digest(1), Self.digest(2))
        // Two requests wait for a before it is here, one for b.
        cache.reserve(a)
        cache.reserve(a)
        cache.reserve(b)
        cache.admit(a, size: 100, fetchedForRequest: true)
        cache.admit(b, size: 100, fetchedForRequest: true)
        // Both are waited for: the cache stays over its budget rather than remove a file a request waits for.
        #expect(removed.withLock { $0 }.isEmpty)
        #expect(cache.counts.bytes == 200 && cache.counts.misses == 2)
        // The first request for a sends it and is done; the second still waits, so a stays.
        #expect(cache.retain(a))
        cache.unreserve(a)
        cache.release(a)
        #expect(removed.withLock { $0 }.isEmpty)
        // Once nobody waits for a, it is the least recently used file nobody sends: it goes.
        cache.unreserve(a)
        #expect(removed.withLock { $0 } == [a])
        #expect(cache.holds(b))
        // Unreserving more often than reserving changes nothing.
        cache.unreserve(b)
        cache.unreserve(b)
        #expect(cache.holds(b) && cache.counts.bytes == 100)
    }

    @Test func withoutABudgetNothingIsRemovedAndAForgottenFileIsNotHeld() {
        let (cache, removed, _) = Self.cache(budget: nil)
        let a = Self.digest(1)
        cache.adopt((1...50).map { (Self.digest(UInt8($0)), Int64(1 << 30)) })
        cache.admit(Self.digest(99), size: 1 << 40)
        #expect(removed.withLock { $0 }.isEmpty)
        cache.forget(a)
        #expect(!cache.holds(a))
        #expect(!cache.retain(a))
        cache.release(a)
        #expect(cache.counts.bytes == 50 * (1 << 30) - (1 << 30) + (1 << 40))
    }
}
