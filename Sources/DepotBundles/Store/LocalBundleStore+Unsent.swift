import DepotCore
import Synchronization

/// What a build does when the replica cannot take its bundle.
package enum ReplicaFailurePolicy: Sendable {
    /// The build fails: a version is recorded only once its bundle is in the replica.
    case fail
    /// The bundle is kept on this disk (never evicted while unsent) and sent by ``LocalBundleStore/sendUnsent()`` once
    /// the replica answers: an instance that starts while its bucket cannot be reached still serves what it built.
    case sendLater
}

/// The bundles this store built that the replica has not taken yet.
final class UnsentBundles: Sendable {
    private let digests = Mutex<Set<BundleDigest>>([])

    /// Notes `digest` as unsent; true if it was not noted already.
    func insert(_ digest: BundleDigest) -> Bool { digests.withLock { $0.insert(digest).inserted } }

    /// Forgets `digest` (sent); true if it was noted.
    func remove(_ digest: BundleDigest) -> Bool { digests.withLock { $0.remove(digest) != nil } }

    /// The unsent bundles, in a stable order.
    var all: [BundleDigest] { digests.withLock { $0.sorted { $0.hex < $1.hex } } }

    /// How many bundles are unsent.
    var count: Int { digests.withLock { $0.count } }
}

/// What one ``LocalBundleStore/sendUnsent()`` did.
package struct UnsentSends: Sendable, Equatable {
    /// The bundles the replica took.
    package var sent: [BundleDigest] = []
    /// The bundle it did not take, with the reason (the sends stop at the first failure).
    package var failed: [BundleDigest: String] = [:]
}

extension LocalBundleStore {
    /// How many bundles built here wait to be sent to the replica (see ``ReplicaFailurePolicy/sendLater``): while any
    /// do, other instances cannot fetch them, and this instance is degraded.
    package var unsentCount: Int { unsent.count }

    /// Sends the bundles waiting for the replica, each as a build would (asking the replica first), until one fails:
    /// a replica that cannot take one now would most likely refuse the next too, and each failure costs the client's
    /// retries. A bundle no longer on this disk (removed by the storage collector: no version names it any more) is
    /// forgotten.
    package func sendUnsent() async -> UnsentSends {
        var sends = UnsentSends()
        guard let replica else { return sends }
        for digest in unsent.all {
            guard let path = path(for: digest) else {
                if unsent.remove(digest) { cache?.unreserve(digest) }
                continue
            }
            do {
                try await replica.upload(digest, path: path)
                if unsent.remove(digest) { cache?.unreserve(digest) }
                sends.sent.append(digest)
            } catch {
                sends.failed[digest] = "\(error)"
                break
            }
        }
        return sends
    }

    /// Keeps `digest` for a later send: reserved in the cache, so that it is not evicted before the replica has it.
    func keepUnsent(_ digest: BundleDigest) {
        if unsent.insert(digest) { cache?.reserve(digest) }
    }
}
