@testable import DepotServerTestSupport
import DepotBundles
import DepotCore
import DepotLedger
@testable import DepotServer
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// A version whose bundle this instance cannot serve (lost from its disk, missing from the object store or damaged
/// there) stays in the catalog, marked unservable: the redeem that would offer it is refused with 503
/// `bundle-unavailable` and `Retry-After` rather than answered with nothing, and a finish with nothing offered does
/// not complete while the purchase entitles content.
@Suite("A version this instance cannot serve")
struct UnservableVersionTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func aRedeemIsRefusedAndAFinishWithNothingOfferedWaits(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine, count: 1) { shared in
            let server = shared.servers[0]
            let version = try server.version(Self.level1)
            // The current version's bundle is lost from this instance's store.
            let path = try #require(server.application.bundleStore.path(for: version.digest))
            let bytes = try #require(FileManager.default.contents(atPath: path))
            try FileManager.default.removeItem(atPath: path)
            try await server.application.refresher.reload(replacingSameRevision: true)
            #expect(!server.application.catalogs.current.isServable(version.digest))

            let client = try RawHTTPClient(port: server.port)
            // Still listed: the product has this version, whatever this disk holds.
            let listed = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(listed.text.contains(version.digest.hex), "\(listed.text)")
            let (jws, id) = try PurchaseSteps.sign(server, product: Self.level1, type: "Non-Consumable")
            let refused = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.text.contains("\"bundle-unavailable\""), "\(refused.text)")
            #expect(refused.value("Retry-After").flatMap { Int($0) }.map { $0 > 0 } == true)
            #expect(try await server.application.ledger.offers(transactionId: id).isEmpty)

            // Nothing was offered, yet the purchase entitles content: the finish does not complete.
            let token = server.application.grants.finishToken(transactionId: id)
            let finish = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", "{\"finishToken\": \"\(token)\", \"delivered\": []}")
            #expect(finish.status == 409, "\(finish.text)")
            #expect(finish.text.contains("\"nothing-delivered\""), "\(finish.text)")
            #expect(try await server.application.ledger.transaction(id: id)?.state == .pending)

            // The bundle back on this disk, the same purchase is offered it and finishes.
            #expect(FileManager.default.createFile(atPath: path, contents: bytes))
            try await server.application.refresher.reload(replacingSameRevision: true)
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let downloads = try #require(redeemed["downloads"] as? [[String: Any]])
            #expect(downloads.compactMap { $0["digest"] as? String } == [version.digest.hex])
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(token)\", \"delivered\": [{\"contentId\": \"\(Self.level1)\", \"digest\": \"\(version.digest.hex)\"}]}"
            )
            #expect(finished.status == 200, "\(finished.text)")
        }
    }
}
