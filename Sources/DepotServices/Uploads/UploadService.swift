import DepotCore
import DepotLedger
import Logging

/// Runs tus uploads: creates them, reports their offset, appends PATCH bodies to disk as they stream in,
/// terminates them. Records live in the ledger (every instance sharing it answers for every upload),
/// bytes under `<dataDirectory>/uploads/`.
///
/// A PATCH's bytes are written in batches of at most `batchBytes` (memory does not grow with the body),
/// made durable with `fsync`, and only then counted by moving the ledger's offset. When the connection is
/// cut mid-body, the bytes that arrived are kept and counted (unless the request carried a checksum, which
/// they can no longer be checked against).
package struct UploadService: Sendable {
    package let ledger: any Ledger
    package let store: UploadStore
    package let settings: UploadSettings
    package let clock: @Sendable () -> Int64
    package let logger: Logger
    /// The most bytes held in memory per PATCH before they are written.
    package let batchBytes = 1 << 20
    /// Where counted bytes are kept when instances share no directory (an object store); nil: in `store`'s files.
    package let parts: (any UploadPartStore)?
    /// This instance's name on upload leases (with `parts`: one writer per upload across instances).
    package let instance = "uploads-" + UploadService.newId()

    /// A service over a ledger and a store, under these settings; with `parts`, each PATCH's bytes are kept there
    /// instead (`store` then holds only the PATCH being received, and files put together for staging).
    package init(
        ledger: any Ledger, store: UploadStore, settings: UploadSettings, parts: (any UploadPartStore)? = nil,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.ledger = ledger
        self.store = store
        self.settings = settings
        self.parts = parts
        self.clock = clock
        self.logger = logger
    }

    /// What HEAD, POST and PATCH report of an upload.
    package struct State: Sendable, Equatable {
        package var id: String
        package var offset: Int64
        package var length: Int64?
        package var metadata: String
        package var expiresAt: Int64
    }

    /// The quota each publisher's live uploads are held to (a deferred length counts as `Tus-Max-Size`).
    package var quota: UploadQuota {
        UploadQuota(
            maxCount: settings.maxLivePerPublisher, maxBytes: settings.maxLiveBytesPerPublisher,
            deferredBytes: settings.maxSize)
    }

    /// tus creation: records a new upload and makes its empty file, within the publisher's quota of live uploads
    /// (403 `upload-count-quota-exceeded` or `upload-bytes-quota-exceeded` past it). The ledger counts the uploads
    /// that exist, so the quota holds across restarts and instances.
    package func create(_ creation: UploadRules.Creation, publisher: String) async throws(UploadError) -> State {
        let id = Self.newId()
        let now = clock()
        let record = UploadRecord(
            id: id, publisher: publisher, length: creation.length, offset: 0, metadata: creation.metadata, createdAt: now,
            expiresAt: now + settings.expirySeconds)
        do {
            // With parts in an object store there is no file to make: each PATCH brings its own.
            if parts == nil { try await store.create(id) }
        } catch {
            throw failure(error)
        }
        let outcome: UploadQuotaOutcome
        do {
            outcome = try await ledger.createUpload(record, within: quota, now: now)
        } catch {
            try? await store.remove(id)
            throw unavailable(error)
        }
        guard outcome == .created else {
            try? await store.remove(id)
            throw outcome == .overCount
                ? .uploadCountQuota(settings.maxLivePerPublisher) : .uploadBytesQuota(settings.maxLiveBytesPerPublisher)
        }
        return State(record)
    }

    /// The state of a live upload of `owner` (404 unknown or another publisher's, 410 expired).
    package func state(id: String, owner: String) async throws(UploadError) -> State {
        State(try UploadRules.live(try await record(id, owner: owner), now: clock()))
    }

    /// tus PATCH: checks the request, then streams `body` to the upload's file.
    package func append<Body: AsyncSequence>(
        id: String, owner: String, contentType: String?, uploadOffset: String?, uploadLength: String?, contentLength: Int64?,
        checksum: String?, body: Body
    ) async throws(UploadError) -> State where Body.Element: UploadBodyChunk {
        let write = try UploadRules.patch(
            try await record(id, owner: owner), now: clock(), contentType: contentType, uploadOffset: uploadOffset,
            uploadLength: uploadLength, contentLength: contentLength, maxSize: settings.maxSize)
        let expected = try checksum.map { header throws(UploadError) in try UploadChecksum(header: header) }
        if let parts {
            return try await appendPart(
                id: id, owner: owner, write: write, checksum: expected, contentLength: contentLength, body: body, parts: parts)
        }
        let writer: UploadWriter
        do {
            writer = try await store.openWriter(id)
        } catch {
            throw failure(error)
        }
        defer { writer.close() }
        // The record read before the lock may be stale: another writer may have finished in between. Only
        // once the lock is held and the offset confirmed is the file touched.
        let locked = try UploadRules.live(try await record(id, owner: owner), now: clock())
        guard locked.offset == write.start else { throw .offsetMismatch(expected: locked.offset, given: write.start) }
        do {
            try await writer.start(at: write.start)
        } catch {
            throw failure(error)
        }

        let received = try await receive(
            body, into: writer, write: write, base: write.start, checksum: expected, contentLength: contentLength)
        let now = clock()
        let expiresAt = now + settings.expirySeconds
        let moved: Bool
        do {
            moved = try await ledger.advanceUpload(
                id: id, from: write.start, to: write.start + received, length: write.setLength, expiresAt: expiresAt,
                now: now)
        } catch {
            try? await writer.truncate(to: write.start)
            throw unavailable(error)
        }
        guard moved else {
            // Terminated or expired meanwhile, or its length was set by another request: count nothing.
            try? await writer.truncate(to: write.start)
            throw .offsetMismatch(expected: write.start, given: write.start + received)
        }
        return State(locked, after: write, received: received, expiresAt: expiresAt)
    }

    /// Streams the body to disk from the writer's position `base`; returns how many bytes count. Bytes that must not
    /// count are cut off again.
    func receive<Body: AsyncSequence>(
        _ body: Body, into writer: UploadWriter, write: UploadRules.Write, base: Int64, checksum: UploadChecksum?,
        contentLength: Int64?
    ) async throws(UploadError) -> Int64 where Body.Element: UploadBodyChunk {
        var hasher = checksum.map { UploadChecksum.Hasher($0.algorithm) }
        var batch: [UInt8] = []
        var received: Int64 = 0
        var cut = false
        do {
            for try await chunk in body {
                received += Int64(chunk.byteCount)
                if received > write.limit {
                    try? await writer.truncate(to: base)
                    throw UploadError.uploadTooLarge("the bytes sent pass the upload's length (\(write.limit) bytes remained)")
                }
                hasher?.update(chunk)
                if batch.isEmpty && chunk.byteCount >= batchBytes {
                    try await writer.append(chunk)
                    continue
                }
                if batch.isEmpty { batch.reserveCapacity(batchBytes) }
                chunk.withBytes { batch.append(contentsOf: $0) }
                if batch.count >= batchBytes {
                    try await writer.append(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as UploadError {
            throw error
        } catch let failure as UploadStore.Failure {
            try? await writer.truncate(to: base)
            throw self.failure(failure)
        } catch {
            // The connection was cut (or the body could not be read): keep what arrived.
            cut = true
            logger.debug("an upload's body ended early", metadata: ["error": "\(error)"])
        }
        if let contentLength, received < contentLength { cut = true }
        if let checksum {
            // tus checksum: a chunk that does not match, or that cannot be checked because it was cut, is discarded.
            guard !cut, hasher?.finalize() == checksum.expected else {
                try? await writer.truncate(to: base)
                if cut { return 0 }
                throw .checksumMismatch(checksum.algorithm.rawValue)
            }
        }
        do {
            if !batch.isEmpty { try await writer.append(batch) }
            try await writer.sync()
        } catch {
            try? await writer.truncate(to: base)
            throw failure(error)
        }
        return received
    }

    /// tus termination: removes the record, then the bytes. 404 when unknown or another publisher's, 423
    /// while being written.
    package func terminate(id: String, owner: String) async throws(UploadError) {
        guard try await record(id, owner: owner) != nil else { throw .uploadNotFound }
        if let parts {
            try await terminateParts(id: id, parts: parts)
            return
        }
        let writer: UploadWriter
        do {
            writer = try await store.openWriter(id)
        } catch .missing {
            _ = try? await ledger.deleteUpload(id: id)
            return
        } catch {
            throw failure(error)
        }
        defer { writer.close() }
        do {
            guard try await ledger.deleteUpload(id: id) else { throw UploadError.uploadNotFound }
        } catch let error as UploadError {
            throw error
        } catch {
            throw unavailable(error)
        }
        try? await store.remove(id)
    }

    /// The upload's record when it exists and belongs to `owner`: another publisher's upload is as unknown
    /// as a missing one (its existence is not revealed).
    func record(_ id: String, owner: String) async throws(UploadError) -> UploadRecord? {
        guard Self.isId(id) else { return nil }
        do {
            return try await ledger.upload(id: id).flatMap { $0.publisher == owner ? $0 : nil }
        } catch {
            throw unavailable(error)
        }
    }

    func failure(_ failure: UploadStore.Failure) -> UploadError {
        switch failure {
        case .locked:
            return .uploadLocked
        case .missing:
            return .uploadNotFound
        case .io(let message):
            logger.error("upload storage failed", metadata: ["error": "\(message)"])
            return .storage
        case .noSpace(let message):
            logger.error("upload storage is full", metadata: ["error": "\(message)"])
            return .insufficientStorage
        }
    }

    func unavailable(_ error: any Error) -> UploadError {
        logger.error("the ledger failed", metadata: ["error": "\(error)"])
        return .ledgerUnavailable
    }

    /// A new random id: 128 bits as 32 lowercase hex digits.
    package static func newId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `text` has the shape of an id (so it can never name a path).
    package static func isId(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension UploadService.State {
    /// The state the ledger records.
    package init(_ record: UploadRecord) {
        self.init(
            id: record.id, offset: record.offset, length: record.length, metadata: record.metadata,
            expiresAt: record.expiresAt)
    }

    /// The state of `record` once a PATCH of `write` counted `received` bytes and moved the expiry to `expiresAt`.
    init(_ record: UploadRecord, after write: UploadRules.Write, received: Int64, expiresAt: Int64) {
        self.init(record)
        offset = write.start + received
        length = record.length ?? write.setLength
        self.expiresAt = expiresAt
    }
}
