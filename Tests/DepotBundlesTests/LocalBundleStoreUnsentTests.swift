import DepotCore
import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotBundles

/// A bundle built while the replica cannot take it: refused by default, kept for a later send when asked, held on the
/// disk through the cache's evictions until it is sent, and sent once the replica answers.
@Suite struct LocalBundleStoreUnsentTests {
    /// A replica in memory that refuses every upload while `down` is set.
    final class SwitchableReplica: BundleReplica {
        struct Unreachable: Error {}
        private let state = Mutex<(down: Bool, held: Set<BundleDigest>, attempts: Int)>((true, [], 0))

        func set(down: Bool) { state.withLock { $0.down = down } }
        var held: Set<BundleDigest> { state.withLock { $0.held } }
        var attempts: Int { state.withLock { $0.attempts } }

        func upload(_ digest: BundleDigest, path: String) async throws {
            try state.withLock { state in
                state.attempts += 1
                if state.down { throw Unreachable() }
                state.held.insert(digest)
            }
        }

        func download(_ digest: BundleDigest, to path: String, maxBytes: Int64) async throws -> Bool { false }
    }

    @Test func aBuildRefusedByTheReplicaFailsUnlessItMaySendLater() async throws {
        try await withTemporaryDirectory { dir in
            let replica = SwitchableReplica()
            let store = try LocalBundleStore(root: dir + "/bundles", replica: replica)
            let pack = try PackReader.read(directory: try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles()))
            await #expect(throws: BundleStoreError.self) { _ = try await store.build(pack) }
            #expect(store.unsentCount == 0)

            let record = try await store.build(pack, compressionLevel: 6, whenReplicaFails: .sendLater)
            #expect(store.unsentCount == 1)
            #expect(store.path(for: record.digest) != nil, "the bundle is served from this disk meanwhile")

            // Still down: nothing sent, the bundle still waits.
            let failed = await store.sendUnsent()
            #expect(failed.sent.isEmpty && failed.failed.keys.contains(record.digest))
            #expect(store.unsentCount == 1)

            replica.set(down: false)
            let sends = await store.sendUnsent()
            #expect(sends.sent == [record.digest])
            #expect(store.unsentCount == 0)
            #expect(replica.held == [record.digest])
            // Nothing waits any more: no call is made.
            let attempts = replica.attempts
            #expect(await store.sendUnsent() == UnsentSends())
            #expect(replica.attempts == attempts)
        }
    }

    @Test func anUnsentBundleIsNotEvictedFromABoundedCache() async throws {
        try await withTemporaryDirectory { dir in
            let replica = SwitchableReplica()
            // A budget far below one bundle: everything the cache may remove goes at once.
            let store = try LocalBundleStore(root: dir + "/bundles", replica: replica, cacheBytes: 1)
            let first = try PackReader.read(
                directory: try PackFixture.write(at: dir + "/one", files: [("a.txt", Array(repeating: 1, count: 4096))]))
            let second = try PackReader.read(
                directory: try PackFixture.write(at: dir + "/two", files: [("b.txt", Array(repeating: 2, count: 4096))]))
            let unsent = try await store.build(first, compressionLevel: 6, whenReplicaFails: .sendLater)
            replica.set(down: false)
            let sent = try await store.build(second, compressionLevel: 6, whenReplicaFails: .sendLater)
            #expect(store.unsentCount == 1)
            #expect(store.path(for: unsent.digest) != nil, "the only copy of an unsent bundle stays")
            #expect(replica.held == [sent.digest])
            #expect(await store.sendUnsent().sent == [unsent.digest])
            #expect(replica.held == [sent.digest, unsent.digest])
        }
    }
}
