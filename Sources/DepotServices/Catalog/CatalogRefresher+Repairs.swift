import DepotBundles
import DepotCore
import Logging
import Synchronization

extension CatalogRefresher {
    /// Replaces, in the object store, the reported copies (missing, or not hashing to their digest when another
    /// instance fetched them) of the catalog's bundles that this instance holds a good copy of; returns the digests
    /// replaced. Run by ``refresh()`` every `missingRetrySeconds`: one listing of the reports each time, and work only
    /// when there are some. Failures are logged, never thrown.
    @discardableResult
    package func repairReported() async -> [BundleDigest] {
        guard store.sharesBundles else { return [] }
        let catalog = holder.current
        let wanted = Set(
            (catalog.versions + catalog.superseded + catalog.limited.map(\.version)).map(\.digest) + catalog.deltas.map(\.digest))
        let repairs: ReplicaRepairs
        do {
            repairs = try await store.repairReported(wanted: wanted)
        } catch {
            logger.warning("the reports of unfetchable bundles could not be read", metadata: ["error": "\(error)"])
            return []
        }
        for digest in repairs.replaced {
            logger.notice(
                "a bundle's copy in the object store was replaced with this instance's good copy", metadata: ["digest": "\(digest)"])
        }
        for (digest, reason) in repairs.failed.sorted(by: { $0.key < $1.key }) {
            logger.error(
                "a bundle's damaged copy in the object store could not be replaced",
                metadata: ["digest": "\(digest)", "error": "\(reason)"])
        }
        return repairs.replaced
    }

    /// Runs ``repairReported()`` when the last run is at least `missingRetrySeconds` old.
    func repairReportedIfDue() async {
        guard store.sharesBundles, repairs.due(at: clock(), every: Self.missingRetrySeconds) else { return }
        await repairReported()
    }
}

extension CatalogRefresher {
    /// Seconds between two attempts at sending the bundles built here that the object store did not take.
    package static let unsentRetrySeconds: Int64 = 5

    /// Sends the bundles built here that the object store could not take (at start, while it could not be reached);
    /// returns the digests sent. Run by ``refresh()`` every `unsentRetrySeconds` while any wait. Failures are
    /// logged, never thrown.
    @discardableResult
    package func sendUnsent() async -> [BundleDigest] {
        guard store.unsentCount > 0 else { return [] }
        let sends = await store.sendUnsent()
        if !sends.sent.isEmpty {
            logger.notice(
                "bundles built while the object store could not be reached are sent to it now",
                metadata: ["bundles": "\(sends.sent.count)", "stillUnsent": "\(store.unsentCount)"])
        }
        if let (digest, reason) = sends.failed.first {
            // Said once a minute at most while the object store stays unreachable.
            let level: Logger.Level = sendFailures.due(at: clock(), every: 60) ? .warning : .debug
            logger.log(
                level: level, "bundles built here still cannot be sent to the object store",
                metadata: ["bundles": "\(store.unsentCount)", "digest": "\(digest)", "error": "\(reason)"])
        }
        return sends.sent
    }

    /// Runs ``sendUnsent()`` when bundles wait and the last attempt is at least `unsentRetrySeconds` old.
    func sendUnsentIfDue() async {
        guard store.unsentCount > 0, sends.due(at: clock(), every: Self.unsentRetrySeconds) else { return }
        await sendUnsent()
    }
}

/// When the reports of unfetchable bundles were last looked at.
final class RepairSchedule: Sendable {
    private let lastRun = Mutex<Int64?>(nil)

    /// Whether a run is due at `now` (none yet, or the last at least `seconds` ago); if so, notes one now.
    func due(at now: Int64, every seconds: Int64) -> Bool {
        lastRun.withLock { last in
            if let previous = last, now - previous < seconds { return false }
            last = now
            return true
        }
    }
}
