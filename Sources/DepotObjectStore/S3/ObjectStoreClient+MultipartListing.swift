import NIOHTTP1

/// A multipart upload begun and neither completed nor aborted.
public struct PendingMultipartUpload: Sendable, Equatable {
    /// The key it writes, relative to the prefix.
    public var key: String
    /// Its upload id.
    public var uploadId: String
    /// When it began, in seconds since 1970 (nil when the store did not say).
    public var initiated: Int64?

    /// An upload as listed.
    public init(key: String, uploadId: String, initiated: Int64?) {
        self.key = key
        self.uploadId = uploadId
        self.initiated = initiated
    }
}

extension ObjectStoreClient {
    /// ListMultipartUploads, every page: the multipart uploads under `prefix` (relative to the client's prefix) that
    /// were begun and neither completed nor aborted (a writer killed mid-upload leaves one, holding its parts' bytes).
    public func pendingMultipartUploads(prefix: String = "") async throws(ObjectStoreError) -> [PendingMultipartUpload] {
        var all: [PendingMultipartUpload] = []
        var markers: (key: String, uploadId: String)?
        repeat {
            var query: [(name: String, value: String)] = [("uploads", ""), ("prefix", settings.prefix + prefix)]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.uploadId)] }
            let answer = try await send(Call(method: .GET, key: nil, query: query, maxAnswerBytes: 16 << 20), accepted: [200])
            let body = try Self.decode(ListMultipartUploadsResultBody.self, answer)
            all += (body.uploads ?? []).compactMap { upload in
                guard upload.key.hasPrefix(settings.prefix) else { return nil }
                return PendingMultipartUpload(
                    key: String(upload.key.dropFirst(settings.prefix.count)), uploadId: upload.uploadId,
                    initiated: upload.initiated.flatMap(ObjectInfo.seconds(iso8601:)))
            }
            if body.isTruncated == true {
                guard let key = body.nextKeyMarker, let id = body.nextUploadIdMarker, !key.isEmpty || !id.isEmpty,
                    (key, id) != (markers?.key ?? "", markers?.uploadId ?? "")
                else { throw .invalidAnswer("a truncated listing of multipart uploads without new markers") }
                markers = (key, id)
            } else {
                markers = nil
            }
        } while markers != nil
        return all
    }
}
