@testable import DepotServerTestSupport
import DepotLedger
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two real `depot serve` processes on one configuration, data directory and ledger (one SQLite file, or one
/// PostgreSQL database): a version staged from the command line and published through one process is
/// offered and served by the other within a few seconds, with new list validators, and a rollback follows.
@Suite("Catalog changes between two depot serve processes", .serialized)
struct ProcessCatalogTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func aPublishThroughOneProcessIsServedByTheOther(engine: LedgerEngine) async throws {
        switch engine {
        case .sqlite: try await run(engine: engine, databaseURL: nil)
        case .postgres: try await PostgresTestDatabase.with { database in try await run(engine: engine, databaseURL: database.url) }
        }
    }

    private func run(engine: LedgerEngine, databaseURL: String?) async throws {
        let scratch = try ScratchDirectory("processCatalog-\(engine.rawValue)")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
        let arguments = [
            "--config", scratch.path + "/Config", "--data-dir", scratch.path + "/data", "--content-dir", scratch.path + "/content",
        ]
        let environment = databaseURL.map { ["DEPOT_DATABASE_URL": $0] } ?? [:]
        let binary = DepotProcess.debugBinary()
        // One after the other: the second finds the bundles the first built.
        let a = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        defer { a.killIfRunning() }
        let b = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        defer { b.killIfRunning() }
        let clientA = Endpoint(port: try #require(a.port))
        let clientB = Endpoint(port: try #require(b.port))
        let depot = DepotCommand(scratch: scratch, databaseURL: databaseURL)

        let key = try await depot.makeKey()
        let initial = try await clientB.request(RawHTTPClient.get("/v1/products"))
        let originalDigest = try #require(try JSONAnswer(initial)["products.0.contents.0.digest"]?.string)
        let directory = try PublisherRequests.writePack(
            in: scratch, at: "uploads/level1-2.0", productId: Self.level1, version: "2.0",
            files: ["notes.txt": Array("Second edition, from the command line.".utf8)])
        let digest = try await depot.stage(directory, product: Self.level1)
        #expect(digest.count == 64)

        let publish = try await clientA.request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
        #expect(publish.status == 200, "\(publish.text)")
        let published = try await clientB.listChanged(from: initial.value("ETag"))
        #expect(try JSONAnswer(published)["products.0.contents.0.digest"]?.string == digest)
        let bundle = try await clientB.request(RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(try await depot.grant(digest))"))
        #expect(bundle.status == 200)
        #expect(SharedInstances.hexSHA256(bundle.body) == digest)

        let back = try await clientB.request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.0/publish", key: key))
        #expect(back.status == 200, "\(back.text)")
        let rolledBack = try await clientA.listChanged(from: published.value("ETag"))
        #expect(try JSONAnswer(rolledBack)["products.0.contents.0.digest"]?.string == originalDigest)

        for server in [a, b] {
            server.kill(SIGTERM)
            let exit = await server.waitForExit(timeout: .seconds(60))
            #expect(exit?.status == 0, "\(server.logText)")
        }
    }
}
