@testable import DepotServerTestSupport
import DepotServices
import DepotSettings
import DepotCore
import DepotLedger
import DepotTrust
import GRDB
import Testing

@testable import DepotServer

/// A transaction is judged by the product type it was redeemed under, not by the catalog's type of the moment:
/// redeem, finish, restore and the grant check all follow the recorded type when a product's type in the catalog
/// changed after the sale (before the type lock existed, or racing the first sale).
@Suite struct RedeemedTypeTests {
    /// Changes a product's type in the ledger's catalog behind the type lock's back, then has the server load it.
    static func retype(_ server: LiveServer, _ productId: String, to type: ProductType) async throws {
        let url = server.application.configuration.ledgerURL
        try #require(url.hasPrefix("sqlite:"))
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(60)
        let queue = try DatabaseQueue(path: String(url.dropFirst("sqlite:".count)), configuration: configuration)
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE catalog_products SET type = ?, period_days = NULL WHERE id = ?", arguments: [type.rawValue, productId])
            try db.execute(sql: "UPDATE catalog_revision SET revision = revision + 1 WHERE id = 1")
        }
        try queue.close()
        try await server.application.refresher.refresh()
        #expect(server.application.catalog.product(id: productId)?.type == type)
    }

    /// Whether the grant check refuses a transaction's grants after a reload from the ledger, as every instance's
    /// periodic refresh (and a restart) does.
    static func refusedAfterReload(_ server: LiveServer, _ id: String) async throws -> Bool {
        try await RevocationRefresh.refusedTransactionIds(
            ledger: server.application.ledger, catalog: server.application.catalog,
            grantLifetime: server.application.configuration.grants.lifetimeSeconds, now: DepotApplication.systemClock()
        ).contains(id)
    }

    @Test func aNonConsumableStaysOneForItsBuyerWhenTheCatalogSaysConsumable() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            let token = try #require(redeemed["transaction.finishToken"]?.string)
            let contentId = try #require(redeemed["downloads.0.contentId"]?.string)
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            let url = try #require(redeemed["downloads.0.url"]?.string)
            #expect(try await server.application.ledger.transaction(id: id)?.productType == .nonConsumable)

            try await Self.retype(server, "com.example.level1", to: .consumable)
            // The finish does not end the grants, as a consumable's would.
            let finished = try await client.request(PurchaseRequests.finish(id, token: token, delivered: [(contentId, digest)]))
            #expect(finished.status == 200, "\(finished.text)")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            #expect(try await !Self.refusedAfterReload(server, id))
            // Redeemed again once finished: still downloads, not 409 consumable-finished.
            let again = try await client.request(PurchaseRequests.redeem(jws))
            #expect(again.status == 200, "\(again.text)")
            #expect(try JSONAnswer(again)["downloads.0.digest"]?.string == digest)
            // Restored: still restored, as a non-consumable is.
            let restored = try JSONAnswer(
                try await PurchaseSteps.post(client, "/v1/restore", "{\"signedTransactions\": [\"\(jws)\"]}"))
            #expect(restored["transactions.0.id"]?.string == id)
            #expect(restored["downloads.0.digest"]?.string == digest)
            // A purchase made now is sold as the catalog says: recorded as a consumable.
            let (later, laterId) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Consumable")
            #expect(try await client.request(PurchaseRequests.redeem(later)).status == 200)
            #expect(try await server.application.ledger.transaction(id: laterId)?.productType == .consumable)
        }
    }

    @Test func aFinishedConsumableStaysFinishedWhenTheCatalogSaysNonConsumable() async throws {
        try await LiveServer.with(packs: LiveServer.standardPacks + [ScheduledVersionTests.coins10]) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            let token = try #require(redeemed["transaction.finishToken"]?.string)
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            let url = try #require(redeemed["downloads.0.url"]?.string)
            #expect(try await server.application.ledger.transaction(id: id)?.productType == .consumable)

            try await Self.retype(server, "com.example.coins", to: .nonConsumable)
            let finished = try await client.request(
                PurchaseRequests.finish(id, token: token, delivered: [(contentId: "com.example.coins", digest: digest)]))
            #expect(finished.status == 200, "\(finished.text)")
            // A consumable's grants stop at its finish, here and on every instance reading the ledger.
            let refused = try await client.request(RawHTTPClient.get(url))
            #expect(refused.status == 403)
            #expect(try JSONAnswer(refused)["error.code"]?.string == "grant-revoked")
            #expect(try await Self.refusedAfterReload(server, id))
            // Redeemed again: finished consumables download nothing more.
            let again = try await client.request(PurchaseRequests.redeem(jws))
            #expect(again.status == 409, "\(again.text)")
            #expect(try JSONAnswer(again)["error.code"]?.string == "consumable-finished")
            // Restored: consumables are not restored.
            let restored = try JSONAnswer(
                try await PurchaseSteps.post(client, "/v1/restore", "{\"signedTransactions\": [\"\(jws)\"]}"))
            #expect(restored["transactions"]?.array.isEmpty == true)
            #expect(restored["downloads"]?.array.isEmpty == true)
        }
    }
}
