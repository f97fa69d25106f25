import DepotLedger
import DepotSystem
import Logging

/// Uploads whose bytes live in an object store (``UploadPartStore``): any instance continues any upload. One writer
/// per upload across instances holds the ledger's lease `upload:<id>` (renewed while the body streams; a killed
/// writer's lease runs out after ``leaseSeconds``, 423 until then); each PATCH's bytes are received into a file of
/// their own, stored as one object, and counted by moving the offset with the object's key in one ledger transaction.
extension UploadService {
    /// How long an upload's lease lasts without renewal: how long a killed writer keeps others out.
    static let leaseSeconds: Int64 = 30
    /// How often a writer renews its lease while a body streams.
    static let leaseRenewal = Duration.seconds(10)

    /// The key of a new object for the bytes of upload `id` from `start` to `end`: random, so a writer that lost the
    /// lease can never overwrite the part another writer recorded.
    static func partKey(upload id: String, start: Int64, end: Int64) -> String {
        "uploads/\(id)/\(start)-\(end)-\(newId().prefix(16))"
    }

    /// tus PATCH with parts in the object store (see the extension's description).
    func appendPart<Body: AsyncSequence>(
        id: String, owner: String, write: UploadRules.Write, checksum: UploadChecksum?, contentLength: Int64?, body: Body,
        parts: any UploadPartStore
    ) async throws(UploadError) -> State where Body.Element: UploadBodyChunk {
        try await withLease(id) { () async throws(UploadError) -> State in
            // The record read before the lease may be stale: another writer may have finished in between.
            let locked = try UploadRules.live(try await record(id, owner: owner), now: clock())
            guard locked.offset == write.start else { throw .offsetMismatch(expected: locked.offset, given: write.start) }
            let scratch = store.path(id) + "." + newIdSuffix() + ".receiving"
            let writer: UploadWriter
            do throws(UploadStore.Failure) {
                writer = try await store.openNew(scratch)
            } catch {
                throw failure(error)
            }
            defer {
                writer.close()
                POSIX.unlinkFile(scratch)
            }
            let received = try await receive(
                body, into: writer, write: write, base: 0, checksum: checksum, contentLength: contentLength)
            var key: String?
            if received > 0 {
                let partKey = Self.partKey(upload: id, start: write.start, end: write.start + received)
                do {
                    try await parts.storePart(partKey, path: scratch)
                } catch {
                    logger.error("an upload's part could not be stored", metadata: ["upload": "\(id)", "error": "\(error)"])
                    throw .storage
                }
                key = partKey
            }
            let now = clock()
            let expiresAt = now + settings.expirySeconds
            let moved: Bool
            do {
                moved = try await ledger.advanceUpload(
                    id: id, from: write.start, to: write.start + received, length: write.setLength, expiresAt: expiresAt,
                    now: now, part: key)
            } catch {
                if let key { try? await parts.deleteParts([key]) }
                throw unavailable(error)
            }
            guard moved else {
                if let key { try? await parts.deleteParts([key]) }
                throw .offsetMismatch(expected: write.start, given: write.start + received)
            }
            return State(locked, after: write, received: received, expiresAt: expiresAt)
        }
    }

    /// tus termination with parts in the object store: under the lease, the records go, then the objects (one left
    /// behind by a failure is an orphan the object store's collector removes).
    func terminateParts(id: String, parts: any UploadPartStore) async throws(UploadError) {
        try await withLease(id) { () async throws(UploadError) in
            let keys: [String]
            do {
                keys = try await ledger.uploadParts(id: id).map(\.key)
                guard try await ledger.deleteUpload(id: id) else { throw UploadError.uploadNotFound }
            } catch let error as UploadError {
                throw error
            } catch {
                throw unavailable(error)
            }
            do {
                try await parts.deleteParts(keys)
            } catch {
                logger.warning("a terminated upload's parts were not all deleted", metadata: ["upload": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// Runs `work` holding upload `id`'s lease (423 when another instance's request holds it), renewing it while the
    /// work runs and giving it up after.
    func withLease<Result: Sendable>(
        _ id: String, _ work: () async throws(UploadError) -> Result
    ) async throws(UploadError) -> Result {
        let name = "upload:" + id
        let (ledger, instance, clock) = (ledger, instance, clock)
        let taken: Bool
        do {
            taken = try await ledger.acquireLease(name, owner: instance, now: clock(), seconds: Self.leaseSeconds)
        } catch {
            throw unavailable(error)
        }
        guard taken else { throw .uploadLocked }
        let renewal = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.leaseRenewal)
                if Task.isCancelled { return }
                _ = try? await ledger.acquireLease(name, owner: instance, now: clock(), seconds: Self.leaseSeconds)
            }
        }
        defer { renewal.cancel() }
        let result: Swift.Result<Result, UploadError>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        renewal.cancel()
        try? await ledger.releaseLease(name, owner: instance)
        return try result.get()
    }

    private func newIdSuffix() -> String { String(Self.newId().prefix(12)) }
}
