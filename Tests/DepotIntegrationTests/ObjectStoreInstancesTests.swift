@testable import DepotServerTestSupport
import Crypto
import DepotBundles
import DepotCore
import DepotLedger
import DepotObjectStore
@testable import DepotServer
import DepotServices
import DepotSettings
import DepotTestSupport
import Foundation
import Logging
import Testing

/// Two instances sharing one PostgreSQL ledger and one bucket, each with a data directory of its own: a version built
/// and published through one is fetched by the other from the bucket, checked against its digest, and served with the
/// same bytes and ranges; the bucket holds each bundle once, under its digest.
@Suite("Bundles shared through an object store")
struct ObjectStoreInstancesTests {
    static let level1 = "com.example.level1"

    /// Two instances sharing the test store and a fresh PostgreSQL database (or one SQLite file), each with a data
    /// directory of its own, and a publisher key; the test's objects are removed afterwards. `localCacheBytes` bounds
    /// each one's local cache.
    static func withTwoInstances(
        _ store: TestObjectStore, _ name: String = #function, engine: LedgerEngine = .postgres, localCacheBytes: Int64? = nil,
        _ body: (SharedInstances, LiveServer, LiveServer, String) async throws -> Void
    ) async throws {
        try await SharedInstances.with(
            name, engine: engine, settings: TestObjectStore.configurationSection(store.settings, localCacheBytes: localCacheBytes),
            dataDirectoryPerInstance: true
        ) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let (key, _) = try await PublisherRequests.makeKey(a.application.ledger)
            try await body(shared, a, b, key)
        }
        try await store.removeAll()
    }

    /// The value of one sample (`name{labels}`) in a Prometheus text exposition.
    static func sample(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    @Test func aVersionPublishedThroughOneIsServedByTheOtherFromTheBucket() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await Self.withTwoInstances(store) { shared, a, b, key in
            let clientA = Endpoint(port: a.port)
            let clientB = Endpoint(port: b.port)
            let initial = try await clientB.request(RawHTTPClient.get("/v1/products"))

            // Built and published through A only.
            var random = SeededBytes(seed: 73)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-2.0", productId: Self.level1, version: "2.0",
                files: ["notes.txt": Array("Second edition.".utf8), "media/big.bin": random.bytes(3 << 20)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "2.0"))
            let digest = staged.content.digest
            let publish = try await clientA.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")

            // B offers it, with the bundle it fetched from the bucket into its own directory.
            let listed = try await clientB.listChanged(from: initial.value("ETag"))
            #expect(listed.text.contains(digest.hex))
            let bPath = SharedInstances.dataDirectory(in: shared.scratch, index: 1, perInstance: true)
            #expect(FileManager.default.fileExists(atPath: "\(bPath)/bundles/\(digest.shard)/\(digest.hex).zip"))
            let download = try await clientB.request(
                RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(b.grant(digest.hex))"))
            #expect(download.status == 200)
            #expect(SharedInstances.hexSHA256(download.body) == digest.hex)
            let range = try await clientB.request(
                RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(b.grant(digest.hex))", ["Range: bytes=1000-1999"]))
            #expect(range.status == 206)
            #expect(range.body == Array(download.body[1000...1999]))

            // The bucket holds it once, under its digest, with the same bytes (boto3 reads it).
            let client = try ObjectStoreClient(settings: store.settings)
            let bundles = try await client.listAll(prefix: "bundles/")
            #expect(bundles.filter { $0.key == ObjectStoreBundleReplica.key(digest) }.count == 1)
            #expect(bundles.first { $0.key == ObjectStoreBundleReplica.key(digest) }?.size == Int64(download.body.count))
            let stored = try await store.boto3(
                "print(hashlib.sha256(S3.get_object(Bucket=BUCKET, Key=PREFIX + 'bundles/\(digest.hex).zip')['Body'].read()).hexdigest())")
            #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == digest.hex)
            // A counts its uploads, B its fetches: the version's bundle, and the delta towards it when A had built it.
            let metricsA = try await clientA.request(RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
            #expect(Self.sample(metricsA.text, #"depot_object_store_calls_total{operation="upload",outcome="written"}"#) ?? 0 >= 1)
            let metricsB = try await clientB.request(RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
            #expect(Self.sample(metricsB.text, #"depot_object_store_calls_total{operation="download",outcome="fetched"}"#) ?? 0 >= 1)
            #expect(
                Self.sample(metricsB.text, #"depot_object_store_bytes_total{operation="download"}"#) ?? 0
                    >= Double(download.body.count))
            let ready = try await clientB.request(RawHTTPClient.get("/readyz"))
            #expect(ready.status == 200, "\(ready.text)")
        }
    }

    @Test func aBundleMissingFromTheBucketIsServedOnceItArrivesWithoutAnotherPublish() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await Self.withTwoInstances(store) { shared, a, b, key in
            let client = try ObjectStoreClient(settings: store.settings)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-3.0", productId: Self.level1, version: "3.0",
                files: ["notes.txt": Array("Third edition.".utf8)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "3.0"))
            let digest = staged.content.digest
            // The bucket lost it before B looked: B lists the version but cannot serve it, and says why in its log.
            let aPath = SharedInstances.dataDirectory(in: shared.scratch, index: 0, perInstance: true)
            let bytes = try #require(FileManager.default.contents(atPath: "\(aPath)/bundles/\(digest.shard)/\(digest.hex).zip"))
            try await client.delete(ObjectStoreBundleReplica.key(digest))
            let initial = try await Endpoint(port: b.port).request(RawHTTPClient.get("/v1/products"))
            let publish = try await Endpoint(port: a.port).request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/3.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")
            let revision = try await a.application.ledger.catalogRevision()
            try await eventually("B installs the publish's revision") { b.application.catalogs.revision >= revision }
            let without = try await Endpoint(port: b.port).request(RawHTTPClient.get("/v1/products"))
            #expect(!initial.text.contains(digest.hex) && without.text.contains(digest.hex))
            #expect(!b.application.catalogs.current.isServable(digest))
            // Back in the bucket, B fetches and serves it on its own.
            try await client.put(ObjectStoreBundleReplica.key(digest), bytes: Array(bytes))
            try await eventually("B serves the version once the bundle is in the bucket") {
                b.application.catalogs.current.isServable(digest)
            }
        }
    }

    @Test func aVersionStagedOnOneAndPublishedThroughTheOtherGetsItsDeltaFromTheBundles() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await Self.withTwoInstances(store) { shared, a, b, key in
            let original = try a.version(Self.level1)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-4.0", productId: Self.level1, version: "4.0",
                files: ["notes.txt": Array("Fourth edition.".utf8), "media/tiles.bin": Array(repeating: 7, count: 4096)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "4.0"))
            // Published through B, which never saw the pack: B makes it again from the bundle to build the delta.
            let publish = try await Endpoint(port: b.port).request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/4.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")
            var recorded: DeltaBundle?
            try await eventually("B records the delta from 1.0 to 4.0") {
                recorded = try await b.application.ledger.catalogSnapshot().deltas.first {
                    $0.contentId == Self.level1 && $0.baseVersion == original.version && $0.targetVersion == "4.0"
                }
                return recorded != nil
            }
            let bPath = SharedInstances.dataDirectory(in: shared.scratch, index: 1, perInstance: true)
            #expect(FileManager.default.fileExists(atPath: "\(bPath)/packs/\(staged.content.digest.hex)/pack.json"))
            // The same bytes as a delta built from the original packs.
            let scratch = try ScratchDirectory(#function)
            defer { scratch.remove() }
            let reference = try LocalBundleStore(root: scratch.path + "/bundles")
            let base = try PackReader.read(directory: shared.scratch.path + "/content/game/level1", limits: .default)
            let target = try PackReader.read(directory: directory, limits: .default)
            let expected = try await reference.buildDelta(from: base, to: target, compressionLevel: 6)
            #expect(recorded?.digest == expected.digest)
            #expect(recorded?.size == expected.size)
        }
    }

    @Test func aNewInstanceOnAnEmptyDiskFetchesEverythingItServesFromTheBucket() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await Self.withTwoInstances(store) { shared, a, _, key in
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-5.0", productId: Self.level1, version: "5.0",
                files: ["notes.txt": Array("Fifth edition.".utf8)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "5.0"))
            let publish = try await Endpoint(port: a.port).request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/5.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")

            // A third instance comes up on an empty data directory and no content directory, as a new container would.
            let empty = shared.scratch.path + "/data-new"
            var configuration = try ConfigurationLoader.load(
                overrides: ConfigurationOverrides(
                    configPath: shared.scratch.path + "/Config", port: 0, dataDirectory: empty,
                    contentDirectory: shared.scratch.path + "/no-content", databaseURL: shared.ledgerURL),
                environment: [:])
            // A loaded test machine can hold a PostgreSQL statement past serve's 5 s; these tests do not measure it.
            configuration.ledgerWaitSeconds = max(configuration.ledgerWaitSeconds, 60)
            var logger = Logger(label: "depot-test")
            logger.logLevel = .warning
            let application = try await DepotApplication.prepare(configuration, logger: logger)
            let catalog = application.catalogs.current
            await application.close()
            let offered = catalog.versions.map(\.digest)
            #expect(offered.contains(staged.content.digest))
            #expect(!offered.isEmpty)
            for digest in offered + catalog.deltas.map(\.digest) {
                let path = "\(empty)/bundles/\(digest.shard)/\(digest.hex).zip"
                let bytes = try #require(FileManager.default.contents(atPath: path), "\(digest) was not fetched")
                #expect(SharedInstances.hexSHA256(Array(bytes)) == digest.hex)
            }
        }
    }

    @Test func anObjectStoreThatCannotBeReachedMakesTheServerNotReady() async throws {
        let settings = ObjectStoreSettings(
            endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "depot",
            credentials: SigV4Credentials(accessKeyId: "AK", secretAccessKey: "SK"), timeoutSeconds: 1)
        let probe = try #require(ObjectStoreReadiness(settings: settings))
        let problem = await probe.problem()
        #expect(problem?.contains("unreachable") == true, "\(problem ?? "nil")")
        let route = ReadinessRoute(
            readLedger: {}, storeDirectory: NSTemporaryDirectory(), objectStoreProblem: { await probe.problem() })
        let reason = await route.reasonNotReady()
        #expect(reason?.hasPrefix("the object store cannot be used") == true, "\(reason ?? "nil")")
    }

    @Test func aCopyThatDoesNotHashToItsDigestIsDroppedAndRefused() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let client = try ObjectStoreClient(settings: store.settings)
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let replica = ObjectStoreBundleReplica(client: client)
        let bundles = try LocalBundleStore(root: scratch.path + "/bundles", replica: replica)
        var random = SeededBytes(seed: 74)
        let genuine = random.bytes(4096)
        let digest = try #require(BundleDigest(bytes: Array(SHA256.hash(data: genuine))))
        // Another instance's copy was damaged: the bytes under the digest's key are not the bundle's.
        var damaged = genuine
        damaged[100] ^= 0x01
        try await client.put(ObjectStoreBundleReplica.key(digest), bytes: damaged)
        await #expect(throws: BundleStoreError.self) { try await bundles.fetch(digest) }
        #expect(bundles.path(for: digest) == nil)
        // Mended in the bucket, the next fetch brings it in; a digest nobody stored is nil.
        try await client.put(ObjectStoreBundleReplica.key(digest), bytes: genuine)
        let path = try #require(try await bundles.fetch(digest))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == genuine)
        let unknown = try #require(BundleDigest(bytes: Array(repeating: UInt8(7), count: 32)))
        #expect(try await bundles.fetch(unknown) == nil)
        try await store.removeAll()
    }

    @Test func concurrentFetchesOfOneBundleMakeOneDownload() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        let client = try ObjectStoreClient(settings: store.settings)
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let counting = CountingReplica(base: ObjectStoreBundleReplica(client: client))
        let bundles = try LocalBundleStore(root: scratch.path + "/bundles", replica: counting)
        var random = SeededBytes(seed: 75)
        let bytes = random.bytes(1 << 20)
        let digest = try #require(BundleDigest(bytes: Array(SHA256.hash(data: bytes))))
        try await client.put(ObjectStoreBundleReplica.key(digest), bytes: bytes)
        let paths = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { try await bundles.fetch(digest) } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(paths).count == 1 && paths.allSatisfy { $0 != nil })
        #expect(await counting.downloads == 1)
        try await store.removeAll()
    }
}

/// A replica that counts the downloads it passes on.
actor CountingReplica: BundleReplica {
    let base: any BundleReplica
    private(set) var downloads = 0

    init(base: any BundleReplica) { self.base = base }

    nonisolated func upload(_ digest: BundleDigest, path: String) async throws {
        try await base.upload(digest, path: path)
    }

    func download(_ digest: BundleDigest, to path: String, maxBytes: Int64) async throws -> Bool {
        downloads += 1
        return try await base.download(digest, to: path, maxBytes: maxBytes)
    }
}
