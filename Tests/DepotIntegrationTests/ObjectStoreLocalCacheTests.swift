@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
@testable import DepotServer
import DepotObjectStore
import DepotServices
import DepotTestSupport
import Foundation
import Testing

/// An instance whose local disk keeps a bounded cache of the bucket's bundles: it serves bundles it never held by
/// fetching them when first asked for (once, however many ask at the same moment), keeps within its budget by
/// removing the least recently used files, and fetches a removed one again when it is asked for again.
@Suite("A bounded local cache of the bucket's bundles")
struct ObjectStoreLocalCacheTests {
    static let level1 = ObjectStoreInstancesTests.level1
    /// The smallest budget the configuration accepts: room for one of the test's bundles, not two.
    static let budget: Int64 = 1 << 20

    /// Stages and publishes `version` of level1 through `server`, with `size` random bytes; returns its digest.
    static func publish(
        _ version: String, size: Int, seed: UInt64, through server: LiveServer, shared: SharedInstances, key: String
    ) async throws -> BundleDigest {
        var random = SeededBytes(seed: seed)
        let directory = try PublisherRequests.writePack(
            in: shared.scratch, at: "uploads/level1-\(version)", productId: level1, version: version,
            files: ["media/level.bin": random.bytes(size)])
        let staged = try await server.application.stager.stage(directory: directory, .init(productId: level1, version: version))
        let publish = try await Endpoint(port: server.port).request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(level1)/versions/\(version)/publish", key: key))
        #expect(publish.status == 200, "\(publish.text)")
        return staged.content.digest
    }

    /// How many bundles `server` fetched from the bucket so far.
    static func fetches(_ server: LiveServer) async throws -> Double {
        let metrics = try await Endpoint(port: server.port).request(
            RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
        return ObjectStoreInstancesTests.sample(
            metrics.text, #"depot_object_store_calls_total{operation="download",outcome="fetched"}"#) ?? 0
    }

    /// The bytes of `digest`'s file on instance `index`'s disk, nil when it is not there.
    static func localFile(_ digest: BundleDigest, instance index: Int, shared: SharedInstances) -> Data? {
        let data = SharedInstances.dataDirectory(in: shared.scratch, index: index, perInstance: true)
        return FileManager.default.contents(atPath: "\(data)/bundles/\(digest.shard)/\(digest.hex).zip")
    }

    /// The files under an instance's bundle workspaces (`bundles/tmp/*/`): evicted files wait there to be removed.
    static func filesMovedAside(instance index: Int, shared: SharedInstances) -> [String] {
        let tmp = SharedInstances.dataDirectory(in: shared.scratch, index: index, perInstance: true) + "/bundles/tmp"
        let workspaces = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
        return workspaces.flatMap { workspace in
            ((try? FileManager.default.contentsOfDirectory(atPath: tmp + "/" + workspace)) ?? []).filter { $0.hasSuffix(".partial") }
        }
    }

    @Test func bundlesAreFetchedWhenAskedForOnceForAHundredRequestsAndEvictedBeyondTheBudget() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store, localCacheBytes: Self.budget) { shared, a, b, key in
            let first = try await Self.publish("6.0", size: 700 << 10, seed: 81, through: a, shared: shared, key: key)
            let second = try await Self.publish("7.0", size: 700 << 10, seed: 82, through: a, shared: shared, key: key)
            let revision = try await a.application.ledger.catalogRevision()
            try await eventually("B installs the second publish") { b.application.catalogs.revision >= revision }
            // B fetched nothing ahead: its cache is filled by requests.
            #expect(Self.localFile(first, instance: 1, shared: shared) == nil)
            let before = try await Self.fetches(b)

            // A HEAD needs no bytes: answered from the catalog, nothing fetched.
            let head = try await RawHTTPClient(port: b.port).request(
                "HEAD /v1/bundles/\(first)?grant=\(b.grant(first.hex)) HTTP/1.1\r\nHost: depot\r\n\r\n", head: true)
            #expect(head.status == 200)
            #expect(Self.localFile(first, instance: 1, shared: shared) == nil)

            // A hundred requests at once for a bundle B does not hold: one fetch, a hundred identical answers.
            let grant = b.grant(first.hex)
            let clients = try (0..<100).map { _ in try RawHTTPClient(port: b.port) }
            for client in clients {
                try await client.send("GET /v1/bundles/\(first)?grant=\(grant) HTTP/1.1\r\nHost: depot\r\n\r\n")
            }
            var answers: [RawHTTPClient.Response] = []
            for client in clients { answers.append(try await client.readResponse()) }
            #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map(\.status)) \(answers.first { $0.status != 200 }?.text ?? "")")
            #expect(Set(answers.map { SharedInstances.hexSHA256($0.body) }) == [first.hex])
            #expect(try await Self.fetches(b) == before + 1)
            #expect(Self.localFile(first, instance: 1, shared: shared).map { SharedInstances.hexSHA256(Array($0)) } == first.hex)

            // A range of the second bundle: fetched, answered; the first goes to keep within the budget.
            let range = try await Endpoint(port: b.port).request(
                RawHTTPClient.get("/v1/bundles/\(second)?grant=\(b.grant(second.hex))", ["Range: bytes=100-199"]))
            #expect(range.status == 206)
            let secondBytes = try #require(Self.localFile(second, instance: 1, shared: shared))
            #expect(range.body == Array(secondBytes[100...199]))
            try await eventually("B removes the first bundle to stay within its budget") {
                Self.localFile(first, instance: 1, shared: shared) == nil
            }
            // Its name was freed at once; its bytes, moved aside under the store's workspace, are freed off the loop.
            try await eventually("B frees the evicted file's bytes") { Self.filesMovedAside(instance: 1, shared: shared) == [] }
            let metrics = try await Endpoint(port: b.port).request(
                RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
            #expect(ObjectStoreInstancesTests.sample(metrics.text, "depot_bundle_cache_evictions_total") ?? 0 >= 1)
            #expect(ObjectStoreInstancesTests.sample(metrics.text, "depot_bundle_cache_bytes") ?? .infinity <= Double(Self.budget))
            #expect(try await Self.fetches(b) == before + 2)

            // Asked for again, the first is fetched again, with the same bytes.
            let again = try await Endpoint(port: b.port).request(RawHTTPClient.get("/v1/bundles/\(first)?grant=\(grant)"))
            #expect(again.status == 200)
            #expect(SharedInstances.hexSHA256(again.body) == first.hex)
            #expect(try await Self.fetches(b) == before + 3)
        }
    }

    @Test func aBundleTheBucketLacksIsAnsweredWithA503AndNothingKept() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store, localCacheBytes: Self.budget) { shared, a, b, key in
            let digest = try await Self.publish("8.0", size: 4096, seed: 83, through: a, shared: shared, key: key)
            let revision = try await a.application.ledger.catalogRevision()
            try await eventually("B installs the publish") { b.application.catalogs.revision >= revision }
            let client = try ObjectStoreClient(settings: store.settings)
            try await client.delete(ObjectStoreBundleReplica.key(digest))
            let answer = try await Endpoint(port: b.port).request(
                RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(b.grant(digest.hex))"))
            #expect(answer.status == 503, "\(answer.text)")
            #expect(answer.text.contains("bundle-unavailable"))
            #expect(Self.localFile(digest, instance: 1, shared: shared) == nil)
            // The connection's next request is answered as usual.
            let products = try await Endpoint(port: b.port).request(RawHTTPClient.get("/v1/products"))
            #expect(products.status == 200)
        }
    }
}
