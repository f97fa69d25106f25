@testable import DepotServerTestSupport
import Crypto
import DepotCore
import DepotLedger
import DepotObjectStore
import DepotServer
@testable import DepotServices
import DepotTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// Collection of the bucket: the lease's holder deletes the bundles nothing refers to once they were unreferenced
/// and old for the grace period; referenced bundles, keys that are not bundles', and the passes of an instance
/// without the lease delete nothing.
@Suite("Unreferenced bundles collected from the object store")
struct BucketCollectorTests {
    @Test func onlyTheLeaseHolderDeletesWhatNothingRefersToOnceTheGraceIsOver() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store) { _, a, b, _ in
            let client = try ObjectStoreClient(settings: store.settings)
            let referenced = try a.version("com.example.level1").digest
            // The instances' own collectors run hourly: these are driven by hand, on a clock moved by hand.
            let now = Int64(Date().timeIntervalSince1970)
            let clock = ManualClock(now)
            func collector(_ server: LiveServer, owner: String) -> BucketCollector {
                BucketCollector(
                    ledger: server.application.ledger, client: client, owner: owner, graceSeconds: 3600, intervalSeconds: 60,
                    clock: { clock.now }, logger: Logger(label: "depot-test"), leaseName: "collection-under-test")
            }
            let holder = collector(a, owner: "collector-a")
            let bystander = collector(b, owner: "collector-b")
            let orphanBytes = Array("an abandoned staging".utf8)
            let orphan = try #require(BundleDigest(bytes: Array(SHA256.hash(data: orphanBytes))))
            try await client.put("bundles/\(orphan.hex).zip", bytes: orphanBytes)
            try await client.put("bundles/not-a-digest.zip", bytes: [1])
            try await client.put("notes/keep.txt", bytes: [2])
            #expect(try await client.head("bundles/\(referenced.hex).zip") != nil)

            // First sight: nothing is due yet.
            let first = await holder.collectOnce()
            #expect(first.held && first.deleted.isEmpty)
            let refused = await bystander.collectOnce()
            #expect(!refused.held && refused.deleted.isEmpty)
            // Past the grace (and the objects older than it): the holder deletes the orphan only.
            clock.now = now + 2 * 3600
            let second = await holder.collectOnce()
            #expect(second.deleted == [orphan])
            #expect(second.bytes == Int64(orphanBytes.count))
            #expect(try await client.head("bundles/\(orphan.hex).zip") == nil)
            #expect(try await client.head("bundles/\(referenced.hex).zip") != nil)
            #expect(try await client.head("bundles/not-a-digest.zip") != nil)
            #expect(try await client.head("notes/keep.txt") != nil)
            // The holder's pass renewed its lease: the other instance is still refused.
            #expect(await bystander.collectOnce().held == false)
            // The holder stops; once its lease expired, the other instance takes over.
            clock.now += 3 * 60 + 1
            #expect(await bystander.collectOnce().held)
        }
    }
}

extension BucketCollectorTests {
    @Test func unrecordedUploadPartsAndAbandonedMultipartUploadsGoOnceTheGraceIsOver() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store) { _, a, _, key in
            let client = try ObjectStoreClient(settings: store.settings)
            let now = Int64(Date().timeIntervalSince1970)
            let clock = ManualClock(now)
            let collector = BucketCollector(
                ledger: a.application.ledger, client: client, owner: "collector", graceSeconds: 3600, intervalSeconds: 60,
                clock: { clock.now }, logger: Logger(label: "depot-test"), leaseName: "upload-collection-under-test")
            // A live upload with one recorded part; a part its PATCH stored but never counted; the part of an upload
            // the ledger no longer knows; a multipart upload a killed writer left.
            let path = try await ObjectStoreUploadTests.create(length: 100, on: a, key: key)
            let id = String(path.split(separator: "/").last ?? "")
            #expect(try await TusRequests.patch(path, offset: 0, Array(repeating: 5, count: 40), port: a.port, key: key).status == 204)
            let recorded = try #require(try await a.application.ledger.uploadParts(id: id).first?.key)
            let uncounted = "uploads/\(id)/40-60-0000000000000000"
            let gone = "uploads/\(UploadService.newId())/0-10-0000000000000000"
            try await client.put(uncounted, bytes: Array(repeating: 6, count: 20))
            try await client.put(gone, bytes: Array(repeating: 7, count: 10))
            let abandoned = try await client.createMultipartUpload("bundles/abandoned.zip")
            #expect(try await client.pendingMultipartUploads().contains { $0.uploadId == abandoned })

            // Within the grace nothing goes.
            let early = await collector.collectOnce()
            #expect(early.held && early.uploadParts.isEmpty && early.abortedMultipartUploads == 0)
            clock.now = now + 2 * 3600
            let late = await collector.collectOnce()
            #expect(Set(late.uploadParts) == [uncounted, gone])
            #expect(late.abortedMultipartUploads >= 1)
            #expect(try await client.head(recorded) != nil)
            #expect(try await client.head(uncounted) == nil)
            #expect(try await client.head(gone) == nil)
            #expect(try await !client.pendingMultipartUploads().contains { $0.uploadId == abandoned })
        }
    }
}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
