@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotServices
import DepotTestSupport
import Foundation
import Testing

/// Two instances sharing one ledger and one data directory: a product edit, a publish and a rollback made
/// through one are served by the other within a few seconds, with new list validators, without a restart.
@Suite("Catalog shared by two instances")
struct SharedCatalogTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func publishAndRollbackThroughOneAreServedByTheOther(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let clientA = Endpoint(port: a.port)
            let clientB = Endpoint(port: b.port)
            let (key, _) = try await PublisherRequests.makeKey(a.application.ledger)
            let original = try b.version(Self.level1)
            let initial = try await clientB.request(RawHTTPClient.get("/v1/products"))

            // A product created through A is listed by B.
            let created = try await clientA.request(
                PublisherRequests.request(
                    "PUT", "/v1/publisher/products/com.example.level9", key: key, json: #"{"type": "nonConsumable", "title": "Level 9"}"#))
            #expect(created.status == 201, "\(created.text)")
            let withProduct = try await clientB.listChanged(from: initial.value("ETag"))
            #expect(withProduct.text.contains("Level 9"))

            // A version staged and published through A is offered and served by B.
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-2.0", productId: Self.level1, version: "2.0",
                files: ["notes.txt": Array("Second edition.".utf8)])
            let staged = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "2.0"))
            let publish = try await clientA.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")
            let published = try await clientB.listChanged(from: withProduct.value("ETag"))
            #expect(published.text.contains(staged.content.digest.hex))
            let unchanged = try await clientB.request(
                RawHTTPClient.get("/v1/products", ["If-None-Match: \(withProduct.value("ETag") ?? "")"]))
            #expect(unchanged.status == 200)
            let download = try await clientB.request(
                RawHTTPClient.get("/v1/bundles/\(staged.content.digest)?grant=\(b.grant(staged.content.digest.hex))"))
            #expect(download.status == 200)
            #expect(SharedInstances.hexSHA256(download.body) == staged.content.digest.hex)

            // A rollback through A: B offers 1.0 again, and a redeem on B hands out 1.0.
            let back = try await clientA.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.0/publish", key: key))
            #expect(back.status == 200, "\(back.text)")
            let rolledBack = try await clientB.listChanged(from: published.value("ETag"))
            #expect(rolledBack.text.contains(original.digest.hex) && !rolledBack.text.contains(staged.content.digest.hex))
            let (jws, _) = try SharedLedgerInstanceTests.sign(shared)
            let redeemed = try await SharedLedgerInstanceTests.redeem(try RawHTTPClient(port: b.port), jws)
            #expect(redeemed["downloads.0.digest"]?.string == original.digest.hex)
        }
    }
}
