import DepotLedger
import Logging
import ServiceLifecycle

/// Removes expired uploads (tus expiration): their bytes from disk (or their objects from the object store), and
/// their records from the ledger.
///
/// Driven by the clock it is given, so a test can move time on and call `reap()` itself; as a `Service`
/// it reaps every `interval` until the server shuts down. An expired upload is answered 410 until it is
/// reaped and 404 after.
package struct UploadReaper: Service {
    package let ledger: any Ledger
    package let store: UploadStore
    package let clock: @Sendable () -> Int64
    package let interval: Duration
    package let logger: Logger
    /// Where uploads' bytes live when instances share no directory; nil: in `store`'s files.
    package let parts: (any UploadPartStore)?
    /// This reaper's name on upload leases.
    private let instance = "reaper-" + UploadService.newId()

    /// A reaper of `store`'s expired uploads (or, with `parts`, of their objects), running every `interval`.
    package init(
        ledger: any Ledger, store: UploadStore, parts: (any UploadPartStore)? = nil, clock: @escaping @Sendable () -> Int64,
        interval: Duration, logger: Logger
    ) {
        self.ledger = ledger
        self.store = store
        self.parts = parts
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Most uploads removed per ledger query.
    static let batch = 100

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await reapLogged()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    private func reapLogged() async {
        do {
            let removed = try await reap()
            if removed > 0 { logger.info("expired uploads removed", metadata: ["count": "\(removed)"]) }
        } catch {
            logger.warning("removing expired uploads failed", metadata: ["error": "\(error)"])
        }
    }

    /// Removes every upload expired by the clock's now; returns how many.
    @discardableResult
    package func reap() async throws -> Int {
        var removed = 0
        while true {
            let ids = try await ledger.expiredUploads(now: clock(), limit: Self.batch)
            guard !ids.isEmpty else { return removed }
            let before = removed
            for id in ids {
                if let parts {
                    if try await reapParts(id, parts: parts) { removed += 1 }
                    continue
                }
                // A writer still holding the file keeps it; its PATCH fails to move the offset and the next run
                // removes it. The record goes last, so a failure here leaves the upload to be found again.
                do {
                    let writer = try await store.openWriter(id)
                    try await store.remove(id)
                    writer.close()
                } catch .missing {
                    // Its bytes are already gone.
                } catch .locked {
                    continue
                } catch {
                    throw error
                }
                if try await ledger.deleteUpload(id: id) { removed += 1 }
            }
            // A short batch was the last; a batch where nothing could be removed (all being written) waits.
            if ids.count < Self.batch || removed == before { return removed }
        }
    }

    /// Removes an expired upload whose bytes are objects: under its lease (a writer holding it keeps the upload for
    /// the next run), its records, then its objects and any file put together from them. True when removed.
    private func reapParts(_ id: String, parts: any UploadPartStore) async throws -> Bool {
        let name = "upload:" + id
        guard try await ledger.acquireLease(name, owner: instance, now: clock(), seconds: UploadService.leaseSeconds) else {
            return false
        }
        let keys = try await ledger.uploadParts(id: id).map(\.key)
        let deleted = try await ledger.deleteUpload(id: id)
        do {
            try await parts.deleteParts(keys)
        } catch {
            logger.warning("an expired upload's parts were not all deleted", metadata: ["upload": "\(id)", "error": "\(error)"])
        }
        try? await store.remove(id)
        try? await ledger.releaseLease(name, owner: instance)
        return deleted
    }
}
