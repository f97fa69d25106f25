@testable import DepotServerTestSupport
import DepotClient
import DepotCore
import Foundation
import Testing

/// DepotClient reads the product lists with the validators of its last answer, and restores purchases.
@Suite("DepotClient product lists and restore")
struct ClientProductListTests {
    @Test func theSecondReadOfEachListIsAnswered304AndGivesTheSameList() async throws {
        try await LiveServer.with { server in
            let client = ClientTestSupport.client(port: server.port)
            let first = try await client.products()
            #expect(!first.notModified)
            #expect(first.entityTag != nil)
            let level1 = try #require(first.list.first { $0.id == "com.example.level1" })
            #expect(level1.type == "nonConsumable")
            #expect(level1.contents.first?.digest == (try server.version("com.example.level1")).digest.hex)
            let second = try await client.products()
            #expect(second.notModified)
            #expect(second.list == first.list)

            let identifiers = try await client.productIdentifiers()
            #expect(!identifiers.notModified)
            #expect(identifiers.list.contains("com.example.level1"))
            let again = try await client.productIdentifiers()
            #expect(again.notModified)
            #expect(again.list == identifiers.list)
            // A fresh client has no validators: a whole answer.
            #expect(try await ClientTestSupport.client(port: server.port).productIdentifiers().notModified == false)
        }
    }

    @Test func restoreOffersWhatTheTransactionsStillEntitle() async throws {
        try await LiveServer.with { server in
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let restored = try await ClientTestSupport.client(port: server.port).restore(signedTransactions: [jws])
            #expect(restored.transactions.map(\.id) == [id])
            #expect(restored.transactions.first?.finishToken != nil)
            #expect(restored.downloads.map(\.contentId) == ["com.example.level1"])
        }
    }
}
