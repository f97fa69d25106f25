import Foundation
import NIOCore
import NIOHTTP1
import XMLCoder

/// One uploaded part of a multipart upload: its number (1 to 10,000) and the entity tag the store gave it.
public struct UploadedPart: Sendable, Equatable, Codable {
    /// 1 to 10,000.
    public var number: Int
    /// The part's entity tag, quotes included.
    public var eTag: String

    /// A part.
    public init(number: Int, eTag: String) {
        self.number = number
        self.eTag = eTag
    }
}

extension ObjectStoreClient {
    /// The fewest bytes a part other than the last may hold (S3: 5 MiB).
    public static let minimumPartSize = 5 << 20
    /// The most parts one upload may have.
    public static let maximumPartCount = 10_000

    /// CreateMultipartUpload: the upload id of a new multipart upload to `key`.
    public func createMultipartUpload(
        _ key: String, contentType: String = "application/octet-stream"
    )
        async throws(ObjectStoreError) -> String
    {
        let answer = try await send(
            Call(method: .POST, key: key, query: [("uploads", "")], headers: [("Content-Type", contentType)]), accepted: [200])
        return try Self.decode(InitiateMultipartUploadResultBody.self, answer).uploadId
    }

    /// UploadPart: stores part `number` (1 to 10,000) of an upload; returns it with its entity tag.
    public func uploadPart(
        _ key: String, uploadId: String, number: Int, bytes: [UInt8]
    ) async throws(ObjectStoreError)
        -> UploadedPart
    {
        guard (1...Self.maximumPartCount).contains(number) else {
            throw .configuration("part number \(number) is outside 1...\(Self.maximumPartCount)")
        }
        let answer = try await send(
            Call(
                method: .PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)],
                body: ByteBuffer(bytes: bytes)),
            accepted: [200])
        guard let eTag = answer.headers.first(name: "ETag") else {
            throw .invalidAnswer("UploadPart \(number) of \(key) has no ETag")
        }
        return UploadedPart(number: number, eTag: eTag)
    }

    /// CompleteMultipartUpload: joins the parts, in number order, into the object. S3 may answer 200 and still fail
    /// (an `<Error>` body): that is a typed error too.
    @discardableResult
    public func completeMultipartUpload(
        _ key: String, uploadId: String, parts: [UploadedPart]
    ) async throws(ObjectStoreError)
        -> String?
    {
        let ordered = parts.sorted { $0.number < $1.number }
        let body = CompleteMultipartUploadBody(parts: ordered.map { .init(partNumber: $0.number, eTag: $0.eTag) })
        let xml: Data
        do {
            xml = try XMLEncoder().encode(body, withRootKey: "CompleteMultipartUpload")
        } catch {
            throw .invalidAnswer("the CompleteMultipartUpload body: \(error)")
        }
        let answer = try await send(
            Call(
                method: .POST, key: key, query: [("uploadId", uploadId)], headers: [("Content-Type", "application/xml")],
                body: ByteBuffer(bytes: xml)),
            accepted: [200])
        if let error = try? XMLDecoder().decode(S3ErrorBody.self, from: Data(answer.body.readableBytesView)), let code = error.code {
            throw .service(status: 200, code: code, message: error.message ?? "", requestId: error.requestId)
        }
        return try Self.decode(CompleteMultipartUploadResultBody.self, answer).eTag
    }

    /// AbortMultipartUpload: drops an upload and its parts; an upload already gone is not an error.
    public func abortMultipartUpload(_ key: String, uploadId: String) async throws(ObjectStoreError) {
        do throws(ObjectStoreError) {
            _ = try await send(Call(method: .DELETE, key: key, query: [("uploadId", uploadId)]), accepted: [200, 204])
        } catch {
            if error.isNotFound { return }
            throw error
        }
    }
}
