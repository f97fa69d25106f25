import DepotLedger
import DepotObjectStore
import DepotSystem
import Foundation

/// Uploads' bytes kept in an S3-compatible bucket: each part an object under `uploads/<id>/` (below the settings'
/// prefix), sent in one PutObject or, above 16 MiB, in a multipart upload; put together again by streaming each into
/// the one file at its own offset.
package struct ObjectStoreUploadParts: UploadPartStore {
    let client: ObjectStoreClient
    let recorder: (any ObjectStoreRecorder)?

    /// Parts in `client`'s bucket; each call is counted in `recorder`, when given.
    package init(client: ObjectStoreClient, recorder: (any ObjectStoreRecorder)? = nil) {
        self.client = client
        self.recorder = recorder
    }

    package func storePart(_ key: String, path: String) async throws {
        let start = ContinuousClock.now
        do {
            _ = try await client.uploadFileIfAbsent(key, path: path)
            let size = (try? FileStatus.lstat(path))?.size ?? 0
            recorder?.objectStoreCall(operation: "upload_part", outcome: "written", bytes: size, duration: ContinuousClock.now - start)
        } catch {
            recorder?.objectStoreCall(
                operation: "upload_part", outcome: error.code ?? "failed", bytes: 0, duration: ContinuousClock.now - start)
            throw error
        }
    }

    package func assemble(_ parts: [UploadPart], into path: String) async throws {
        let output = try await OffLoop.run { try POSIX.openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) }
        defer { POSIX.closeFile(output) }
        for part in parts {
            let start = ContinuousClock.now
            guard let size = try await client.download(part.key, into: output, at: part.start, maxBytes: part.end - part.start)
            else {
                throw ObjectStoreError.localFile("the part \(part.key) is missing from the object store")
            }
            recorder?.objectStoreCall(operation: "download_part", outcome: "fetched", bytes: size, duration: ContinuousClock.now - start)
            guard size == part.end - part.start else {
                throw ObjectStoreError.localFile("the part \(part.key) holds \(size) bytes, not \(part.end - part.start)")
            }
        }
    }

    package func deleteParts(_ keys: [String]) async throws {
        for key in keys {
            let start = ContinuousClock.now
            try await client.delete(key)
            recorder?.objectStoreCall(operation: "delete_part", outcome: "deleted", bytes: 0, duration: ContinuousClock.now - start)
        }
    }
}
