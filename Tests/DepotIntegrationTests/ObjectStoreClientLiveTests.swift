import Crypto
import DepotObjectStore
@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// The S3 client against a real S3 implementation (Ceph's RADOS Gateway, `.ci/s3.sh`), with boto3 as an independent
/// client checking what Depot wrote and writing what Depot reads.
@Suite("Object store client on a real S3 store")
struct ObjectStoreClientLiveTests {
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    @Test func objectsArePutReadInRangesListedAndDeleted() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let settings = store.settings
        let client = try ObjectStoreClient(settings: settings)
        var random = SeededBytes(seed: 71)
        let bytes = random.bytes(300_000)
        let key = "bundles/a key with spaces & ünïcode+plus"
        let eTag = try await client.put(key, bytes: bytes)
        #expect(eTag != nil)
        // boto3 reads the same key name and the same bytes.
        let digest = try await store.boto3(
            "print(hashlib.sha256(S3.get_object(Bucket=BUCKET, Key=PREFIX + '\(key)')['Body'].read()).hexdigest())")
        #expect(digest.trimmingCharacters(in: .whitespacesAndNewlines) == Self.sha256Hex(bytes))

        let whole = try await client.get(key)
        #expect(whole.bytes == bytes)
        #expect(whole.objectSize == 300_000)
        let middle = try await client.get(key, range: 1000...1999)
        #expect(middle.bytes == Array(bytes[1000...1999]))
        #expect(middle.objectSize == 300_000)
        let info = try #require(try await client.head(key))
        #expect(info.size == 300_000)
        #expect(info.eTag == eTag)

        await #expect(throws: ObjectStoreError.tooLarge(limit: 1000)) { try await client.get(key, maxBytes: 1000) }

        try await client.delete(key)
        #expect(try await client.head(key) == nil)
        // Deleting again is not an error; reading a missing key is NoSuchKey.
        try await client.delete(key)
        await #expect(performing: { try await client.get(key) }, throws: { ($0 as? ObjectStoreError)?.code == "NoSuchKey" })
    }

    @Test func aConditionalPutWritesOnceAndKeepsTheFirstBytes() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let settings = store.settings
        let client = try ObjectStoreClient(settings: settings)
        #expect(try await client.putIfAbsent("digest", bytes: Array("first".utf8)))
        #expect(try await client.putIfAbsent("digest", bytes: Array("second".utf8)) == false)
        #expect(try await client.get("digest").bytes == Array("first".utf8))
        try await client.delete("digest")
    }

    @Test func listingsArePagedToTheEnd() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let settings = store.settings
        let client = try ObjectStoreClient(settings: settings)
        let keys = (0..<7).map { "list/\($0)" }
        for key in keys { try await client.put(key, bytes: Array(key.utf8)) }
        // One written by boto3 under another prefix is not listed.
        _ = try await store.boto3("S3.put_object(Bucket=BUCKET, Key=PREFIX + 'other/x', Body=b'x')")
        let first = try await client.list(prefix: "list/", maxKeys: 3)
        #expect(first.objects.map(\.key) == Array(keys.prefix(3)))
        #expect(first.continuationToken != nil)
        let all = try await client.listAll(prefix: "list/", pageSize: 3)
        #expect(all.map(\.key) == keys)
        #expect(all.map(\.size) == keys.map { Int64($0.utf8.count) })
        for key in keys + ["other/x"] { try await client.delete(key) }
        #expect(try await client.listAll().isEmpty)
    }

    @Test func aMultipartUploadIsJoinedInOrderAndAnAbortedOneLeavesNothing() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let settings = store.settings
        let client = try ObjectStoreClient(settings: settings)
        var random = SeededBytes(seed: 72)
        let first = random.bytes(ObjectStoreClient.minimumPartSize)
        let last = random.bytes(12_345)
        let uploadId = try await client.createMultipartUpload("packs/big")
        // Parts uploaded out of order are joined by number.
        let part2 = try await client.uploadPart("packs/big", uploadId: uploadId, number: 2, bytes: last)
        let part1 = try await client.uploadPart("packs/big", uploadId: uploadId, number: 1, bytes: first)
        try await client.completeMultipartUpload("packs/big", uploadId: uploadId, parts: [part2, part1])
        let digest = try await store.boto3(
            "print(hashlib.sha256(S3.get_object(Bucket=BUCKET, Key=PREFIX + 'packs/big')['Body'].read()).hexdigest())")
        #expect(digest.trimmingCharacters(in: .whitespacesAndNewlines) == Self.sha256Hex(first + last))
        #expect(try await client.head("packs/big")?.size == Int64(first.count + last.count))

        let abandoned = try await client.createMultipartUpload("packs/abandoned")
        _ = try await client.uploadPart("packs/abandoned", uploadId: abandoned, number: 1, bytes: last)
        try await client.abortMultipartUpload("packs/abandoned", uploadId: abandoned)
        let open = try await store.boto3(
            "print(len([u for u in S3.list_multipart_uploads(Bucket=BUCKET, Prefix=PREFIX).get('Uploads', [])]))")
        #expect(open.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // Completing an aborted upload fails with the store's error (S3 says NoSuchUpload; Ceph 16 a 500), and makes
        // no object.
        await #expect(
            performing: { try await client.completeMultipartUpload("packs/abandoned", uploadId: abandoned, parts: [part1]) },
            throws: { ($0 as? ObjectStoreError)?.status != nil })
        #expect(try await client.head("packs/abandoned") == nil)
        await #expect(throws: ObjectStoreError.self) {
            try await client.uploadPart("packs/big", uploadId: uploadId, number: 10_001, bytes: last)
        }
        try await client.delete("packs/big")
    }

    @Test func refusalsAndOutagesAreTypedErrors() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        var settings = store.settings
        settings.retry = ObjectStoreRetryPolicy(maxAttempts: 2, baseDelaySeconds: 0.01, maxDelaySeconds: 0.02)
        var forged = settings
        forged.credentials.secretAccessKey += "x"
        let refused = try ObjectStoreClient(settings: forged)
        await #expect(
            performing: { try await refused.put("k", bytes: [1]) },
            throws: { error in
                guard let error = error as? ObjectStoreError else { return false }
                return error.status == 403 && error.code == "SignatureDoesNotMatch" && !error.isRetryable
            })
        var unknownBucket = settings
        unknownBucket.bucket = "no-such-bucket-\(UInt32.random(in: 0...UInt32.max))"
        await #expect(
            performing: { try await ObjectStoreClient(settings: unknownBucket).put("k", bytes: [1]) },
            throws: { ($0 as? ObjectStoreError)?.code == "NoSuchBucket" })
        // Nothing listens on the discard port: AsyncHTTPClient tries to connect until the request's timeout.
        var closed = settings
        closed.endpoint = "http://127.0.0.1:9"
        closed.timeoutSeconds = 1
        await #expect(
            performing: { try await ObjectStoreClient(settings: closed).get("k") },
            throws: { error in
                guard case .transport = error as? ObjectStoreError else { return false }
                return true
            })
    }
}
