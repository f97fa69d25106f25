import DepotSystem

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of uploads on disk: `<dataDirectory>/uploads/<id>`, one file per upload.
///
/// Which of a file's bytes count is the ledger's record (its offset); bytes past it (a writer that died
/// before recording them) are cut off when the next writer starts at the recorded offset. One writer at a
/// time: opening for writing takes an exclusive `flock` without waiting, which also holds between processes
/// sharing the directory, and is released by the kernel if the process dies. Blocking calls run off the
/// concurrency pool (`OffLoop`).
package struct UploadStore: Sendable {
    /// Why the store could not do what was asked.
    package enum Failure: Error, Equatable {
        /// Another writer holds the upload.
        case locked
        /// The upload's file is gone, or holds fewer bytes than its record says.
        case missing
        /// A system call failed.
        case io(String)
        /// A write failed because the filesystem is full (`ENOSPC`) or a quota is spent; nothing was counted.
        case noSpace(String)

        /// `what` failed with `error`.
        static func io(_ what: String, _ error: SystemCallError) -> Failure {
            let message = "\(what): \(String(cString: strerror(error.code)))"
            return error.isOutOfSpace ? .noSpace(message) : .io(message)
        }
    }

    /// The directory holding the files.
    package let directory: String

    /// A store in `<dataDirectory>/uploads`, created if needed.
    package init(dataDirectory: String) throws(Failure) {
        directory = dataDirectory + "/uploads"
        do throws(SystemCallError) { try POSIX.makeDirectory(directory, mode: 0o700) } catch {
            throw .io("cannot create the uploads directory", error)
        }
    }

    /// The file of upload `id` (ids are checked hex, never a path).
    package func path(_ id: String) -> String { directory + "/" + id }

    /// Creates the empty file of a new upload.
    package func create(_ id: String) async throws(Failure) {
        let path = path(id)
        try await run { () throws(Failure) in
            do throws(SystemCallError) {
                POSIX.closeFile(try POSIX.openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600))
            } catch {
                throw Failure.io("cannot create an upload file", error)
            }
        }
    }

    /// Removes the file of upload `id`; a file already gone is fine.
    package func remove(_ id: String) async throws(Failure) {
        let path = path(id)
        try await run { () throws(Failure) in
            do throws(SystemCallError) { try POSIX.removeFile(path) } catch { throw Failure.io("cannot remove an upload file", error) }
        }
    }

    /// Opens upload `id` for writing, holding its lock: `locked` when another writer has it, `missing` when
    /// the file is gone. Nothing is changed until the writer is told where to `start`.
    package func openWriter(_ id: String) async throws(Failure) -> UploadWriter {
        let path = path(id)
        let descriptor = try await run { () throws(Failure) -> Int32 in
            let descriptor: Int32
            do throws(SystemCallError) {
                descriptor = try POSIX.openFile(path, O_WRONLY)
            } catch {
                if error.code == ENOENT { throw Failure.missing }
                throw Failure.io("cannot open an upload file", error)
            }
            let locked: Bool
            do throws(SystemCallError) {
                locked = try POSIX.lockExclusively(descriptor, wait: false)
            } catch {
                POSIX.closeFile(descriptor)
                throw Failure.io("cannot lock an upload file", error)
            }
            guard locked else {
                POSIX.closeFile(descriptor)
                throw Failure.locked
            }
            return descriptor
        }
        return UploadWriter(descriptor: descriptor, store: self)
    }

    /// Opens a new file at `path` (which must not exist) for writing from its start: the file of one PATCH's bytes
    /// when they are kept elsewhere (an object store).
    package func openNew(_ path: String) async throws(Failure) -> UploadWriter {
        let descriptor = try await run { () throws(Failure) -> Int32 in
            do throws(SystemCallError) {
                return try POSIX.openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            } catch {
                throw Failure.io("cannot create a file for an upload's bytes", error)
            }
        }
        return UploadWriter(descriptor: descriptor, store: self)
    }

    /// Runs a blocking call off the concurrency pool.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        try await OffLoop.run(body)
    }
}

/// The one writer of an upload's file: appends at its position, syncs, cuts back. Used by one task at a
/// time; `close` releases the lock.
package final class UploadWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let store: UploadStore
    /// Where the next byte goes.
    private(set) var position: Int64 = 0
    private var closed = false

    fileprivate init(descriptor: Int32, store: UploadStore) {
        self.descriptor = descriptor
        self.store = store
    }

    /// Starts writing at `offset` (the ledger's, read while holding the lock): `missing` when the file holds
    /// fewer bytes; bytes past it (never counted) are cut off.
    package func start(at offset: Int64) async throws(UploadStore.Failure) {
        let descriptor = descriptor
        try await store.run { () throws(UploadStore.Failure) in
            guard let size = try? FileStatus.fstat(descriptor).size, size >= offset,
                (try? POSIX.truncate(descriptor, offset)) != nil
            else { throw UploadStore.Failure.missing }
        }
        position = offset
    }

    deinit {
        if !closed { POSIX.closeFile(descriptor) }
    }

    /// Writes `chunk` at the position and moves it on.
    package func append(_ chunk: some UploadBodyChunk) async throws(UploadStore.Failure) {
        let descriptor = descriptor
        let start = position
        try await store.run { () throws(UploadStore.Failure) in
            let failure: SystemCallError? = chunk.withBytes { bytes in
                do throws(SystemCallError) { try POSIX.writeFully(descriptor, bytes, at: start) } catch { return error }
                return nil
            }
            if let failure { throw UploadStore.Failure.io("writing an upload failed", failure) }
        }
        position += Int64(chunk.byteCount)
    }

    /// Makes the bytes written so far durable (`fsync`).
    package func sync() async throws(UploadStore.Failure) {
        let descriptor = descriptor
        try await store.run { () throws(UploadStore.Failure) in
            do throws(SystemCallError) { try POSIX.sync(descriptor) } catch {
                throw UploadStore.Failure.io("syncing an upload failed", error)
            }
        }
    }

    /// Cuts the file back to `offset` (a discarded chunk).
    package func truncate(to offset: Int64) async throws(UploadStore.Failure) {
        let descriptor = descriptor
        try await store.run { () throws(UploadStore.Failure) in
            do throws(SystemCallError) { try POSIX.truncate(descriptor, offset) } catch {
                throw UploadStore.Failure.io("cutting an upload back failed", error)
            }
        }
        position = offset
    }

    /// Closes the file, releasing the lock.
    package func close() {
        guard !closed else { return }
        closed = true
        POSIX.closeFile(descriptor)
    }
}
