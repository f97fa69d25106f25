import DepotBundles
import DepotCore
import DepotLedger
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

    /// Notes versions new to the ledger whose bundles the object store did not take at start: each is recorded, as the
    /// import would have, once its bundle has been sent.
    package func recordOnceSent(_ versions: [ContentVersion]) {
        deferred.add(versions)
    }

    /// Sends the bundles built here that the object store could not take (at start, while it could not be reached),
    /// then records the versions waiting for them; returns the digests sent. Failures are logged, never thrown.
    @discardableResult
    package func sendUnsent() async -> [BundleDigest] {
        let sends = await store.sendUnsent()
        if !sends.sent.isEmpty {
            logger.notice(
                "bundles built while the object store could not be reached are sent to it now",
                metadata: ["bundles": "\(sends.sent.count)", "stillUnsent": "\(store.unsentCount)"])
        }
        if let (digest, reason) = sends.failed.min(by: { $0.key.hex < $1.key.hex }) {
            // Said once a minute at most while the object store stays unreachable.
            let level: Logger.Level = sendFailures.due(at: clock(), every: 60) ? .warning : .debug
            logger.log(
                level: level, "bundles built here still cannot be sent to the object store",
                metadata: ["bundles": "\(sends.failed.count)", "digest": "\(digest)", "error": "\(reason)"])
        }
        await recordDeferred()
        return sends.sent
    }

    /// Records the deferred versions whose bundles are in the object store now.
    private func recordDeferred() async {
        for version in deferred.all where !store.isUnsent(version.digest) {
            do {
                let outcome = try await ledger.addVersion(version, state: .published, now: clock())
                deferred.remove(version)
                switch outcome {
                case .added, .unchanged:
                    logger.notice(
                        "a version deferred at start is recorded: its bundle is in the object store",
                        metadata: ["content": "\(version.contentId)", "version": "\(version.version)"])
                default:
                    // Another instance (or a publisher) recorded something else under it meanwhile: refused as the
                    // import refuses it.
                    logger.error(
                        "a version deferred at start is refused by the ledger",
                        metadata: ["content": "\(version.contentId)", "version": "\(version.version)", "outcome": "\(outcome)"])
                }
            } catch {
                logger.warning(
                    "a deferred version could not be recorded yet", metadata: ["content": "\(version.contentId)", "error": "\(error)"])
            }
        }
    }

    /// Starts ``sendUnsent()`` in the background when bundles or versions wait, none is under way, and the last attempt
    /// is at least `unsentRetrySeconds` old: an attempt against an unreachable bucket takes seconds per bundle, and
    /// neither the catalog poll nor a publisher's request waits for it.
    func sendUnsentIfDue() {
        guard store.unsentCount > 0 || !deferred.all.isEmpty, sends.due(at: clock(), every: Self.unsentRetrySeconds),
            sending.start()
        else { return }
        let (refresher, sending) = (self, sending)
        Task {
            await refresher.sendUnsent()
            sending.end()
        }
    }
}

/// Versions recorded once their bundles are in the object store.
final class DeferredVersions: Sendable {
    private let versions = Mutex<[ContentVersion]>([])

    func add(_ more: [ContentVersion]) { versions.withLock { $0 += more } }
    func remove(_ version: ContentVersion) { versions.withLock { $0.removeAll { $0 == version } } }
    var all: [ContentVersion] { versions.withLock { $0 } }
}

/// One run at a time of a background job.
final class SingleRun: Sendable {
    private let running = Mutex(false)

    /// Notes a run; false when one is under way already.
    func start() -> Bool {
        running.withLock { running in
            guard !running else { return false }
            running = true
            return true
        }
    }

    /// Notes the run over.
    func end() { running.withLock { $0 = false } }
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
