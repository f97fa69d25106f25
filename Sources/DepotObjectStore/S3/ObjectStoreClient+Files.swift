import AsyncHTTPClient
import DepotSystem
import Foundation
import NIOCore
import NIOHTTP1

extension ObjectStoreClient {
    /// The part size of a file uploaded in parts, and the largest file sent in one PutObject (16 MiB).
    public static let filePartSize = 16 << 20

    /// Stores the file at `path` under `key` unless an object is there already (content-addressed keys: the bytes are
    /// the same whoever wrote them): true when this call wrote it. A file up to ``filePartSize`` goes in one conditional
    /// PutObject; a larger one, after a HeadObject, in a multipart upload of parts of that size, aborted if any part
    /// fails.
    public func uploadFileIfAbsent(
        _ key: String, path: String, contentType: String = "application/octet-stream"
    )
        async throws(ObjectStoreError) -> Bool
    {
        try await uploadFile(key, path: path, contentType: contentType, onlyIfAbsent: true)
    }

    /// Stores the file at `path` under `key`, replacing whatever object is there (a copy found damaged): one
    /// PutObject up to ``filePartSize``, a multipart upload of parts of that size above it, aborted if any part fails.
    public func replaceFile(
        _ key: String, path: String, contentType: String = "application/octet-stream"
    ) async throws(ObjectStoreError) {
        _ = try await uploadFile(key, path: path, contentType: contentType, onlyIfAbsent: false)
    }

    private func uploadFile(
        _ key: String, path: String, contentType: String, onlyIfAbsent: Bool
    ) async throws(ObjectStoreError) -> Bool {
        let file = try await OffLoop.run { () throws(ObjectStoreError) in try OpenFile(path: path) }
        defer { file.close() }
        if file.size <= Int64(Self.filePartSize) {
            let bytes = try await file.read(at: 0, count: Int(file.size))
            guard onlyIfAbsent else {
                try await put(key, bytes: bytes, contentType: contentType)
                return true
            }
            return try await putIfAbsent(key, bytes: bytes, contentType: contentType)
        }
        if onlyIfAbsent, try await head(key) != nil { return false }
        let uploadId = try await createMultipartUpload(key, contentType: contentType)
        do throws(ObjectStoreError) {
            var parts: [UploadedPart] = []
            var offset: Int64 = 0
            while offset < file.size {
                let count = Int(min(Int64(Self.filePartSize), file.size - offset))
                parts.append(
                    try await uploadPart(
                        key, uploadId: uploadId, number: parts.count + 1, bytes: try await file.read(at: offset, count: count)))
                offset += Int64(count)
            }
            try await completeMultipartUpload(key, uploadId: uploadId, parts: parts)
            return true
        } catch {
            try? await abortMultipartUpload(key, uploadId: uploadId)
            throw error
        }
    }

    /// Streams the object `key` into a new file at `path` (which must not exist); returns its size, or nil when the
    /// store holds no such object (no file is left then). A failed attempt is tried again from the start within the
    /// retry policy; a file is left only when the whole object arrived. More than `maxBytes` is refused.
    public func downloadFile(_ key: String, to path: String, maxBytes: Int64 = .max) async throws(ObjectStoreError) -> Int64? {
        let descriptor = try await OffLoop.run { () throws(ObjectStoreError) -> Int32 in
            do {
                return try POSIX.openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
            } catch {
                throw .localFile("cannot create \(path): \(error)")
            }
        }
        defer { POSIX.closeFile(descriptor) }
        do throws(ObjectStoreError) {
            guard let size = try await download(key, into: descriptor, at: 0, maxBytes: maxBytes) else {
                POSIX.unlinkFile(path)
                return nil
            }
            return size
        } catch {
            POSIX.unlinkFile(path)
            throw error
        }
    }

    /// Streams the object `key` into the open file `descriptor` from byte `base` on (the file is cut back to `base`
    /// first, and again before each retry); returns its size, or nil when the store holds no such object. A failed
    /// attempt is tried again within the retry policy. More than `maxBytes` is refused.
    public func download(
        _ key: String, into descriptor: Int32, at base: Int64, maxBytes: Int64 = .max
    ) async throws(ObjectStoreError) -> Int64? {
        var attempt = 1
        while true {
            do throws(ObjectStoreError) {
                return try await downloadOnce(key, into: descriptor, at: base, maxBytes: maxBytes)
            } catch {
                if error.isNotFound { return nil }
                if Task.isCancelled || !error.isRetryable || attempt >= settings.retry.maxAttempts { throw error }
                let delay = settings.retry.delay(afterAttempt: attempt, random: random())
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                attempt += 1
            }
        }
    }

    private func downloadOnce(
        _ key: String, into descriptor: Int32, at base: Int64, maxBytes: Int64
    ) async throws(ObjectStoreError) -> Int64 {
        try await Self.fileWork("cannot empty the download's file") { try POSIX.truncate(descriptor, base) }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(
                signedRequest(Call(method: .GET, key: key)), timeout: .seconds(settings.timeoutSeconds))
        } catch {
            throw .transport("\(error)")
        }
        guard response.status == .ok else {
            let body = (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()
            throw Self.serviceError(Answer(status: Int(response.status.code), headers: response.headers, body: body))
        }
        let expected = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        if let expected, expected > maxBytes { throw .tooLarge(limit: Int(clamping: maxBytes)) }
        var written: Int64 = 0
        // Chunks are gathered up to 1 MiB and each batch written off the concurrency pool.
        var pending: [UInt8] = []
        func flush() async throws(ObjectStoreError) {
            guard !pending.isEmpty else { return }
            let (batch, offset) = (pending, base + written - Int64(pending.count))
            pending.removeAll(keepingCapacity: true)
            try await Self.fileWork("cannot write the download") {
                try batch.withUnsafeBytes { bytes in try POSIX.writeFully(descriptor, bytes, at: offset) }
            }
        }
        do {
            for try await chunk in response.body {
                let (total, overflow) = written.addingReportingOverflow(Int64(chunk.readableBytes))
                guard !overflow, total <= maxBytes else { throw ObjectStoreError.tooLarge(limit: Int(clamping: maxBytes)) }
                pending.append(contentsOf: chunk.readableBytesView)
                written = total
                if pending.count >= 1 << 20 { try await flush() }
            }
            try await flush()
        } catch let error as ObjectStoreError {
            throw error
        } catch {
            throw .transport("\(error)")
        }
        if let expected, expected != written {
            throw .transport("the object \(key) ended after \(written) of \(expected) bytes")
        }
        try await Self.fileWork("cannot sync the download") { try POSIX.sync(descriptor) }
        return written
    }
}

extension ObjectStoreClient {
    /// Runs a blocking file call off the concurrency pool; its failure is a `localFile` error saying `what`.
    fileprivate static func fileWork(
        _ what: String, _ work: @escaping @Sendable () throws -> Void
    )
        async throws(ObjectStoreError)
    {
        do {
            try await OffLoop.run(work)
        } catch {
            throw .localFile("\(what): \(error)")
        }
    }
}

/// A local file opened for reading, with its size.
private struct OpenFile: Sendable {
    let descriptor: Int32
    let size: Int64

    init(path: String) throws(ObjectStoreError) {
        do {
            descriptor = try POSIX.openFile(path, O_RDONLY)
        } catch {
            throw .localFile("cannot open \(path): \(error)")
        }
        do {
            size = try FileStatus.fstat(descriptor).size
        } catch {
            POSIX.closeFile(descriptor)
            throw .localFile("cannot read the size of \(path): \(error)")
        }
    }

    /// `count` bytes at `offset`, read off the concurrency pool.
    func read(at offset: Int64, count: Int) async throws(ObjectStoreError) -> [UInt8] {
        let descriptor = descriptor
        return try await OffLoop.run { () throws(ObjectStoreError) -> [UInt8] in
            do {
                return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized throws(SystemCallError) in
                    try POSIX.readFully(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset)
                    initialized = count
                }
            } catch {
                throw .localFile("cannot read: \(error)")
            }
        }
    }

    func close() { POSIX.closeFile(descriptor) }
}
