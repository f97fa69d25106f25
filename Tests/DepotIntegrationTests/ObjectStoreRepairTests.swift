@testable import DepotServerTestSupport
import DepotBundles
import DepotCore
import DepotLedger
import DepotObjectStore
@testable import DepotServer
import DepotServices
import DepotTrust
import DepotTestSupport
import Foundation
import Testing

/// A bundle's copy in the bucket that is missing or damaged: the instance that cannot fetch it refuses the redeems it
/// would offer (503 `bundle-unavailable`), reports itself degraded and reports the copy; an instance holding a good
/// copy replaces it; a bundle staged again after the collector deleted it is sent again.
@Suite("Damaged and missing copies in the object store")
struct ObjectStoreRepairTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func aDamagedCopyIsRefusedNotOfferedEmptyThenReplacedByAnInstanceHoldingAGoodOne(engine: LedgerEngine) async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store, engine: engine) { shared, a, b, key in
            let client = try ObjectStoreClient(settings: store.settings)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-6.0", productId: Self.level1, version: "6.0",
                files: ["notes.txt": Array("Sixth edition.".utf8)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "6.0"))
            let digest = staged.content.digest
            // The bucket's copy is damaged (one bit, same size) before B fetches it.
            let aPath = SharedInstances.dataDirectory(in: shared.scratch, index: 0, perInstance: true)
            let genuine = try #require(FileManager.default.contents(atPath: "\(aPath)/bundles/\(digest.shard)/\(digest.hex).zip"))
            var damaged = Array(genuine)
            damaged[damaged.count / 2] ^= 0x01
            try await client.put(ObjectStoreBundleReplica.key(digest), bytes: damaged)
            let publish = try await Endpoint(port: a.port).request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/6.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")
            let revision = try await a.application.ledger.catalogRevision()
            try await eventually("B installs the publish's revision") { b.application.catalogs.revision >= revision }

            // B keeps the version, cannot serve it, and refuses rather than offering nothing.
            #expect(!b.application.catalogs.current.isServable(digest))
            let bClient = try RawHTTPClient(port: b.port)
            let (jws, id) = try PurchaseSteps.sign(b, product: Self.level1, type: "Non-Consumable")
            let refused = try await PurchaseSteps.post(bClient, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.text.contains("\"bundle-unavailable\""), "\(refused.text)")
            #expect(refused.value("Retry-After") != nil)
            let token = b.application.grants.finishToken(transactionId: id)
            let finish = try await PurchaseSteps.post(
                bClient, "/v1/transactions/\(id)/finish", "{\"finishToken\": \"\(token)\", \"delivered\": []}")
            #expect(finish.status == 409, "\(finish.text)")
            #expect(try await b.application.ledger.transaction(id: id)?.state == .pending)
            // B says it is degraded, and how many bundles it cannot fetch. (A's own catalog poll may have replaced the
            // copy and B's retry fetched it since, on a slow machine: then B is ready and serves it again.)
            let notReady = try await bClient.request(RawHTTPClient.get("/readyz"))
            let recovered = { b.application.catalogs.current.isServable(digest) }
            #expect(notReady.status == 503 || (notReady.status == 200 && recovered()), "\(notReady.text)")
            #expect(notReady.text.contains("cannot be fetched") || recovered(), "\(notReady.text)")
            let metrics = try await bClient.request(RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
            let unfetchable = ObjectStoreInstancesTests.sample(metrics.text, "depot_bundles_unfetchable")
            #expect(unfetchable == 1 || (unfetchable == 0 && recovered()), "\(metrics.text)")

            // A holds a good copy and replaces the damaged one B reported (A's own catalog poll may have done it
            // already: then this pass finds no report left).
            let replaced = await a.application.refresher.repairReported()
            #expect(replaced == [digest] || replaced.isEmpty)
            let stored = try await client.get(ObjectStoreBundleReplica.key(digest))
            #expect(SharedInstances.hexSHA256(stored.bytes) == digest.hex)
            #expect(try await client.listAll(prefix: ObjectStoreBundleReplica.reportPrefix).isEmpty)

            // B fetches it at its next attempt, is ready again, and offers it.
            try await b.application.refresher.reload(replacingSameRevision: true)
            #expect(b.application.catalogs.current.isServable(digest))
            #expect(try await bClient.request(RawHTTPClient.get("/readyz")).status == 200)
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(bClient, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let downloads = try #require(redeemed["downloads"] as? [[String: Any]])
            #expect(downloads.compactMap { $0["digest"] as? String }.contains(digest.hex))
        }
    }

    @Test func aReportedCopyIsReplacedOnlyFromACopyThatHashesToItsDigest() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let client = try ObjectStoreClient(settings: store.settings)
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let holder = try LocalBundleStore(root: scratch.path + "/holder", replica: ObjectStoreBundleReplica(client: client))
        let fetcher = try LocalBundleStore(root: scratch.path + "/fetcher", replica: ObjectStoreBundleReplica(client: client))
        let pack = try Self.pack(in: scratch, seed: 81)
        let record = try await holder.build(pack)
        // Missing from the bucket: the fetcher finds nothing and reports it; the holder sends it again.
        try await client.delete(ObjectStoreBundleReplica.key(record.digest))
        #expect(try await fetcher.fetch(record.digest) == nil)
        #expect(try await ObjectStoreBundleReplica(client: client).reported() == [record.digest])
        let repairs = try await holder.repairReported()
        #expect(repairs.replaced == [record.digest] && repairs.failed.isEmpty)
        #expect(try await fetcher.fetch(record.digest) != nil)
        #expect(try await ObjectStoreBundleReplica(client: client).reported().isEmpty)
        try await store.removeAll()
    }

    @Test func aBundleStagedAgainAfterTheCollectorDeletedItIsSentAgain() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let client = try ObjectStoreClient(settings: store.settings)
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let bundles = try LocalBundleStore(root: scratch.path + "/bundles", replica: ObjectStoreBundleReplica(client: client))
        let pack = try Self.pack(in: scratch, seed: 82)
        let first = try await bundles.build(pack)
        #expect(try await client.head(ObjectStoreBundleReplica.key(first.digest)) != nil)
        // The collector (of any instance) deletes it once no version names it.
        try await client.delete(ObjectStoreBundleReplica.key(first.digest))
        // The same pack staged again on the same instance: built from the store's index, and in the bucket again
        // before the build returns (so before a version could name it).
        let again = try await bundles.build(pack)
        #expect(again.digest == first.digest)
        let found = try await client.head(ObjectStoreBundleReplica.key(first.digest))
        #expect(found?.size == first.size)
        // A copy of another size under the digest (damaged) is replaced too.
        try await client.put(ObjectStoreBundleReplica.key(first.digest), bytes: [1, 2, 3])
        _ = try await bundles.build(pack)
        #expect(try await client.head(ObjectStoreBundleReplica.key(first.digest))?.size == first.size)
        try await store.removeAll()
    }

    /// A small pack of seeded random bytes, read from a directory in `scratch`.
    static func pack(in scratch: ScratchDirectory, seed: UInt64) throws -> Pack {
        var random = SeededBytes(seed: seed)
        let directory = try PublisherRequests.writePack(
            in: scratch, at: "pack-\(seed)", productId: level1, version: "\(seed).0", files: ["data.bin": random.bytes(8192)])
        return try PackReader.read(directory: directory, limits: .default)
    }
}
