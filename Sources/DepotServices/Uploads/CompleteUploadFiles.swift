import DepotLedger
import DepotSystem

/// Where a complete upload's bytes are read from for staging: its file in the uploads directory, or, when uploads'
/// bytes live in an object store, a file there put together from its parts (again after a failed attempt; kept for
/// a later attempt while it has the upload's length).
package struct CompleteUploadFiles: Sendable {
    let store: UploadStore
    let ledger: any Ledger
    let parts: (any UploadPartStore)?

    /// Files of `store`, or, with `parts`, put together from the parts the ledger names.
    package init(store: UploadStore, ledger: any Ledger, parts: (any UploadPartStore)?) {
        self.store = store
        self.ledger = ledger
        self.parts = parts
    }

    /// The path of the file holding upload `id`'s bytes.
    package func path(_ id: String) async throws -> String {
        let path = store.path(id)
        guard let parts else { return path }
        guard let upload = try await ledger.upload(id: id) else { return path }
        if let size = (try? FileStatus.lstat(path))?.size, size == upload.offset { return path }
        let recorded = try await ledger.uploadParts(id: id)
        var next: Int64 = 0
        for part in recorded {
            guard part.start == next else { throw UploadStore.Failure.io("upload \(id)'s parts leave a gap at byte \(next)") }
            next = part.end
        }
        guard next == upload.offset else { throw UploadStore.Failure.io("upload \(id)'s parts end at byte \(next), not \(upload.offset)") }
        let assembling = path + ".assembling"
        POSIX.unlinkFile(assembling)
        do {
            try await parts.assemble(recorded, into: assembling)
            try POSIX.renameFile(assembling, path)
        } catch {
            POSIX.unlinkFile(assembling)
            throw error
        }
        return path
    }
}
