import DepotArchives
import DepotBundles
import DepotCore
import DepotLedger
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import DepotSystem

/// Turns uploads into staged versions in the background: for each version job, checks the upload against
/// its declared SHA-256, unpacks it safely into a scratch folder (`DepotArchives`: no path escapes, no
/// links or devices, bounded sizes, entries and compression ratio; in a child process when `unpacker` says
/// so, as `depot serve` does), stages the pack with `VersionStager`,
/// and records each step in the ledger (`validating`, `bundling`, then `staged`, or `failed` with the
/// reason). Nothing is staged unless every step succeeded; the scratch folder is removed either way.
///
/// The runner reports on every job it holds (queued or running) at a quarter of the staleness bound, and
/// fails jobs that nobody reported on within it (their server stopped or was killed), so a version never
/// shows as in progress when no server works on it. Jobs run one at a time per server.
package final class VersionJobRunner: Service, Sendable {
    let ledger: any Ledger
    let stager: VersionStager
    let uploads: @Sendable (String) async throws -> String
    let scratchRoot: String
    let archiveLimits: ArchiveLimits
    let unpacker: ArchiveUnpacker
    let staleSeconds: Int64
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// Called after a version was staged (the server refreshes its catalog).
    let onStaged: @Sendable () async -> Void
    /// The data directory's free-space floor: below it, a job waits for space, then fails (nil: never waits).
    let floor: StorageFloor?
    private let queue: AsyncStream<Queued>
    private let sink: AsyncStream<Queued>.Continuation
    /// The jobs this server holds, with the state last recorded for each.
    private let held = Mutex<[String: VersionJobState]>([:])
    /// Set when a graceful shutdown began: queued jobs are no longer started.
    private let stopping = Mutex(false)

    /// A runner staging through `stager`; `uploads` gives an upload's file path; scratch folders go under
    /// `scratchRoot`.
    package init(
        ledger: any Ledger, stager: VersionStager, uploads: @escaping @Sendable (String) async throws -> String, scratchRoot: String,
        archiveLimits: ArchiveLimits, unpacker: ArchiveUnpacker = .inProcess, staleSeconds: Int64, clock: @escaping @Sendable () -> Int64,
        logger: Logger, floor: StorageFloor? = nil,
        onStaged: @escaping @Sendable () async -> Void = {}
    ) {
        self.ledger = ledger
        self.stager = stager
        self.uploads = uploads
        self.scratchRoot = scratchRoot
        self.archiveLimits = archiveLimits
        self.unpacker = unpacker
        self.staleSeconds = staleSeconds
        self.clock = clock
        self.logger = logger
        self.onStaged = onStaged
        self.floor = floor
        (queue, sink) = AsyncStream.makeStream(of: Queued.self)
    }

    /// A job waiting for its turn, with the publisher whose key asked for it (its scope bounds the pack).
    private struct Queued: Sendable {
        var id: String
        var publisher: AuthenticatedPublisher
    }

    /// Records a new job for `job`'s version and queues it; `.inProgress` when another job for the same
    /// version is live. The pack's content id must lie within `publisher`'s key scope.
    package func submit(_ job: VersionJob, publisher: AuthenticatedPublisher) async throws(LedgerError) -> VersionJobCreation {
        held.withLock { $0[job.id] = .received }
        let outcome: VersionJobCreation
        do {
            outcome = try await ledger.createVersionJob(job, staleBefore: clock() - staleSeconds)
        } catch {
            _ = held.withLock { $0.removeValue(forKey: job.id) }
            throw error
        }
        switch outcome {
        case .created: sink.yield(Queued(id: job.id, publisher: publisher))
        case .inProgress: _ = held.withLock { $0.removeValue(forKey: job.id) }
        }
        return outcome
    }

    package func run() async throws {
        try? FileManager.default.createDirectory(atPath: scratchRoot, withIntermediateDirectories: true)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.reportWhileHeld() }
                for await queued in self.queue where !self.stopping.withLock({ $0 }) {
                    await self.process(queued.id, publisher: queued.publisher)
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.stopping.withLock { $0 = true }
            self.sink.finish()
        }
        // Jobs still queued at a stop are failed now rather than when they go stale.
        let left = held.withLock { held in
            defer { held.removeAll() }
            return Array(held.keys)
        }
        for id in left {
            _ = try? await ledger.updateVersionJob(
                id: id, state: .failed, failureReason: "the server stopped before it staged this version; post it again",
                now: clock())
        }
    }

    // MARK: One job

    /// Why a step failed: the reason recorded on the job.
    private struct StepFailure: Error {
        let reason: String
    }

    func process(_ id: String, publisher: AuthenticatedPublisher) async {
        defer { _ = held.withLock { $0.removeValue(forKey: id) } }
        let scratch = (scratchRoot as NSString).appendingPathComponent(id)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let job = try? await ledger.versionJob(id: id), !job.state.isFinal else { return }
        do {
            if let reason = await waitForSpace() { throw StepFailure(reason: reason) }
            guard try await move(id, to: .validating) else { return }
            let directory = try await unpack(job, into: scratch)
            try await completePack(directory, for: job)
            guard try await move(id, to: .bundling) else { return }
            let staged: CatalogVersion
            do {
                staged = try await stager.stage(
                    directory: directory,
                    .init(
                        productId: job.productId, version: job.version, contentId: job.contentId, publishedAt: job.publishedAt,
                        publisher: publisher))
            } catch {
                throw StepFailure(reason: error.message)
            }
            _ = try await move(id, to: .staged)
            logger.info(
                "version staged",
                metadata: [
                    "publisher": "\(job.publisher)", "product": "\(job.productId)", "content": "\(staged.content.contentId)",
                    "version": "\(staged.content.version)", "digest": "\(staged.content.digest)",
                ])
            await onStaged()
        } catch let failure as StepFailure {
            logger.notice(
                "version refused",
                metadata: ["product": "\(job.productId)", "version": "\(job.version)", "reason": "\(failure.reason)"])
            _ = try? await ledger.updateVersionJob(id: id, state: .failed, failureReason: failure.reason, now: clock())
        } catch {
            logger.error("version job interrupted", metadata: ["job": "\(id)", "error": "\(error)"])
            _ = try? await ledger.updateVersionJob(
                id: id, state: .failed, failureReason: "the ledger could not be reached while staging; post it again",
                now: clock())
        }
    }

    /// Checks the upload's digest and unpacks it into `scratch`; returns the pack's folder (the scratch
    /// folder, or the single folder at its top, as `zip -r pack.zip pack/` makes).
    private func unpack(_ job: VersionJob, into scratch: String) async throws -> String {
        guard let upload = try await ledger.upload(id: job.uploadId) else {
            throw StepFailure(reason: "upload \(job.uploadId) is gone (it expired or was deleted); upload the pack again")
        }
        guard upload.isComplete else {
            throw StepFailure(reason: "upload \(job.uploadId) is not complete (\(upload.offset) bytes received)")
        }
        let path: String
        do {
            path = try await uploads(job.uploadId)
        } catch {
            throw StepFailure(reason: "upload \(job.uploadId) cannot be read: \(error)")
        }
        let limits = archiveLimits
        let unpacker = unpacker
        let declared = job.sha256
        return try await OffLoop.run { () throws(StepFailure) -> String in
            let digest: String
            do throws(FileSHA256.Failure) { digest = try FileSHA256.hex(path: path) } catch {
                throw StepFailure(reason: "upload \(job.uploadId) cannot be read: \(error.description)")
            }
            guard digest == declared else {
                throw StepFailure(reason: "the upload's SHA-256 is \(digest), not the declared \(declared)")
            }
            try? FileManager.default.removeItem(atPath: scratch)
            do throws(UnpackFailure) {
                try unpacker.unpack(path, into: scratch, limits: limits)
            } catch {
                throw StepFailure(reason: error.reason)
            }
            return PackFolderCompletion.packFolder(in: scratch)
        }
    }

    /// Gives an upload without `pack.json` one made from the job (the product's title, the job's or the present
    /// publication time), and an upload of plain files its `Contents/`.
    private func completePack(_ directory: String, for job: VersionJob) async throws {
        let title = try await ledger.catalogProduct(id: job.productId)?.title
        let facts = PackFolderCompletion.Facts(
            productId: job.productId, version: job.version, contentId: job.contentId,
            publishedAt: job.publishedAt ?? clock(), title: title)
        try await OffLoop.run { () throws(StepFailure) in
            do throws(PackFolderCompletion.Failure) { try PackFolderCompletion.complete(directory, with: facts) } catch {
                throw StepFailure(reason: error.reason)
            }
        }
    }

    /// Records the job's new state; false when the job became final meanwhile (failed as stale).
    private func move(_ id: String, to state: VersionJobState) async throws -> Bool {
        held.withLock { $0[id] = state }
        return try await ledger.updateVersionJob(id: id, state: state, failureReason: nil, now: clock())
    }

    // MARK: Reporting

    /// Until cancelled: reports on every held job, fails the jobs nobody reported on, and removes scratch
    /// folders of jobs that are over.
    private func reportWhileHeld() async {
        let interval = max(1, staleSeconds / 4)
        while !Task.isCancelled {
            await reportOnce()
            try? await Task.sleep(for: .seconds(interval))
        }
    }

    func reportOnce() async {
        let now = clock()
        for (id, state) in held.withLock({ $0 }) where !state.isFinal {
            _ = try? await ledger.updateVersionJob(id: id, state: state, failureReason: nil, now: now)
        }
        do {
            let failed = try await ledger.failStaleVersionJobs(
                before: now - staleSeconds,
                reason: "the server working on this version stopped before it was staged; post it again", now: now)
            if failed > 0 { logger.notice("version jobs failed after their server stopped", metadata: ["count": "\(failed)"]) }
        } catch {
            logger.warning("version jobs not checked", metadata: ["error": "\(error)"])
        }
        await removeLeftScratch()
    }

    /// Removes scratch folders left by a stop or a kill: those of jobs that are over or unknown (a shared
    /// data directory may hold another server's live ones, which stay).
    private func removeLeftScratch() async {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scratchRoot)) ?? []
        let mine = held.withLock { Set($0.keys) }
        for name in names where !mine.contains(name) {
            let job = try? await ledger.versionJob(id: name)
            if job == nil || job?.state.isFinal == true {
                try? FileManager.default.removeItem(atPath: (scratchRoot as NSString).appendingPathComponent(name))
            }
        }
    }
}
