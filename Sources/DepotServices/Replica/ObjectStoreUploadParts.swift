import DepotLedger
import DepotObjectStore
import DepotSystem
import Foundation

/// Uploads' bytes kept in an S3-compatible bucket: each part an object under `uploads/<id>/` (below the settings'
/// prefix), sent in one PutObject or, above 16 MiB, in a multipart upload; put together again by fetching each into
/// a file of its own and appending it.
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
            let piece = path + ".piece"
            POSIX.unlinkFile(piece)
            let start = ContinuousClock.now
            guard let size = try await client.downloadFile(part.key, to: piece, maxBytes: part.end - part.start) else {
                throw ObjectStoreError.localFile("the part \(part.key) is missing from the object store")
            }
            recorder?.objectStoreCall(operation: "download_part", outcome: "fetched", bytes: size, duration: ContinuousClock.now - start)
            guard size == part.end - part.start else {
                POSIX.unlinkFile(piece)
                throw ObjectStoreError.localFile("the part \(part.key) holds \(size) bytes, not \(part.end - part.start)")
            }
            try await OffLoop.run {
                defer { POSIX.unlinkFile(piece) }
                try Self.append(piece, to: output, at: part.start)
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

    /// Copies the file at `path` into `output` from `offset` on, 1 MiB at a time. Blocking.
    private static func append(_ path: String, to output: Int32, at offset: Int64) throws {
        let input = try POSIX.openFile(path, O_RDONLY)
        defer { POSIX.closeFile(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position: Int64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in try POSIX.readFully(input, into: raw) }
            if count == 0 { return }
            try buffer.withUnsafeBytes { raw in
                try POSIX.writeFully(output, UnsafeRawBufferPointer(rebasing: raw[0..<count]), at: offset + position)
            }
            position += Int64(count)
        }
    }
}
