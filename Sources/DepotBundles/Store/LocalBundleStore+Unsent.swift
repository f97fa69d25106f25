import DepotCore
import Synchronization

/// What a build does when the replica cannot take its bundle.
package enum ReplicaFailurePolicy: Sendable {
    /// The build fails: a version is recorded only once its bundle is in the replica.
    case fail
    /// The replica is tried for at most ``LocalBundleStore/sendLaterBound``; if it does not take the bundle by then, the
    /// bundle is kept on this disk (never evicted while unsent) and sent by ``LocalBundleStore/sendUnsent()`` once the
    /// replica answers: an instance that starts while its bucket cannot be reached still serves what it built.
    case sendLater
    /// As `sendLater`, without trying the replica now (it has just failed another bundle).
    case holdForLater
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

    /// Whether `digest` is unsent.
    func contains(_ digest: BundleDigest) -> Bool { digests.withLock { $0.contains(digest) } }
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

    /// Whether the bundle `digest` was built here and waits to be sent to the replica.
    package func isUnsent(_ digest: BundleDigest) -> Bool { unsent.contains(digest) }

    /// The longest one attempt at sending a bundle to the replica may take when a failure only delays the send (a
    /// start, a later send): the replica's own retries against a bucket that accepts connections and never answers
    /// would take minutes per bundle.
    package static let sendLaterBound: Duration = .seconds(10)

    /// Sends the bundles waiting for the replica, each as a build would (asking the replica first) within
    /// ``sendLaterBound``; one's failure does not stop the others. A bundle no longer on this disk (removed by the
    /// storage collector: no version names it any more) is forgotten.
    package func sendUnsent() async -> UnsentSends {
        var sends = UnsentSends()
        guard let replica else { return sends }
        for digest in unsent.all {
            guard let path = path(for: digest) else {
                if unsent.remove(digest) { cache?.unreserve(digest) }
                continue
            }
            if let failure = await Self.upload(digest, path: path, to: replica, within: Self.sendLaterBound) {
                sends.failed[digest] = failure
            } else {
                if unsent.remove(digest) { cache?.unreserve(digest) }
                sends.sent.append(digest)
            }
        }
        return sends
    }

    /// Uploads `digest` to `replica`, giving up (and cancelling the upload) after `bound`; nil when the replica took it,
    /// else why not.
    static func upload(_ digest: BundleDigest, path: String, to replica: any BundleReplica, within bound: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await replica.upload(digest, path: path)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            group.addTask {
                do { try await Task.sleep(for: bound) } catch { return "cancelled" }
                return "the object store did not take it within \(bound)"
            }
            let first = await group.next() ?? "cancelled"
            group.cancelAll()
            return first
        }
    }

    /// Keeps `digest` for a later send: reserved in the cache, so that it is not evicted before the replica has it.
    func keepUnsent(_ digest: BundleDigest) {
        if unsent.insert(digest) { cache?.reserve(digest) }
    }
}
