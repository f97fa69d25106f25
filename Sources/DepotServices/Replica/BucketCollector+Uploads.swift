import DepotLedger
import DepotObjectStore
import Logging

extension BucketCollector {
    /// Deletes the upload parts (`uploads/<id>/...`) written more than `graceSeconds` ago that no live upload
    /// records (the upload was terminated or reaped and a delete failed, or the part's PATCH failed after storing
    /// it), and aborts the multipart uploads begun more than `graceSeconds` ago (a writer killed mid-upload leaves
    /// one, holding its parts' bytes out of sight). A failed read collects nothing.
    func collectUploads(now: Int64, into pass: inout Pass) async {
        let objects: [ObjectInfo]
        do {
            objects = try await client.listAll(prefix: "uploads/")
        } catch {
            logger.warning("upload parts not collected: the bucket could not be listed", metadata: ["error": "\(error)"])
            return
        }
        var byUpload: [String: [ObjectInfo]] = [:]
        for object in objects {
            guard let written = object.lastModified, now - written >= graceSeconds else { continue }
            let segments = object.key.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard segments.count == 3, UploadService.isId(String(segments[1])) else { continue }
            byUpload[String(segments[1]), default: []].append(object)
        }
        for (id, objects) in byUpload.sorted(by: { $0.key < $1.key }) {
            let recorded: Set<String>
            do {
                recorded = try await ledger.upload(id: id) == nil ? [] : Set(try await ledger.uploadParts(id: id).map(\.key))
            } catch {
                continue
            }
            for object in objects where !recorded.contains(object.key) {
                let start = ContinuousClock.now
                do {
                    try await client.delete(object.key)
                    recorder?.objectStoreCall(
                        operation: "delete_part", outcome: "deleted", bytes: 0, duration: ContinuousClock.now - start)
                    pass.uploadParts.append(object.key)
                } catch {
                    logger.warning(
                        "an unrecorded upload part could not be deleted", metadata: ["key": "\(object.key)", "error": "\(error)"])
                }
            }
        }
        let pending: [PendingMultipartUpload]
        do {
            pending = try await client.pendingMultipartUploads()
        } catch {
            logger.warning("multipart uploads not collected: they could not be listed", metadata: ["error": "\(error)"])
            return
        }
        for upload in pending {
            guard let initiated = upload.initiated, now - initiated >= graceSeconds else { continue }
            do {
                try await client.abortMultipartUpload(upload.key, uploadId: upload.uploadId)
                pass.abortedMultipartUploads += 1
            } catch {
                logger.warning(
                    "an abandoned multipart upload could not be aborted", metadata: ["key": "\(upload.key)", "error": "\(error)"])
            }
        }
    }
}
