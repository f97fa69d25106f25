@testable import DepotServerTestSupport
import DepotTestSupport
import DepotTrust
import Testing

extension AppStorePartialRefundTests {
    /// Two refunds of one unit each, then Apple reverses one of them: the transaction the REFUND_REVERSED carries
    /// still says a third is refunded, and exactly that unit stays revoked (a reversal clearing both would deliver
    /// a unit the buyer was refunded for).
    @Test(arguments: LedgerEngine.allCases)
    func aReversalOfOneOfTwoPartialRefundsKeepsTheOtherUnitRevoked(engine: LedgerEngine) async throws {
        try await LiveServer.with(engine: engine, packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") { $0.quantity = 3 }
            _ = try await Self.redeemed(client, jws)
            let now = Self.now()
            var signedAt = now - 6000
            for (percentage, expected) in [(33_333, "partially-revoked 1 of 3"), (66_667, "partially-revoked 2 of 3")] {
                let (refunded, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                    $0.transactionId = id
                    $0.quantity = 3
                    $0.signedDate = signedAt
                    $0.revocationDate = signedAt
                    $0.revocationType = "REFUND_PRORATED"
                    $0.revocationPercentage = percentage
                }
                let refund = try await Self.notify(client, server, type: "REFUND", transaction: refunded, signedDate: signedAt + 500)
                #expect(try Self.effect(refund) == expected)
                signedAt += 2000
            }
            #expect(try await Self.redeemed(client, jws)["transaction.revokedQuantity"]?.int == 2)

            let (oneReversed, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.transactionId = id
                $0.quantity = 3
                $0.signedDate = signedAt
                $0.revocationDate = now - 6000
                $0.revocationType = "REFUND_PRORATED"
                $0.revocationPercentage = 33_333
            }
            let reversal = try await Self.notify(
                client, server, type: "REFUND_REVERSED", transaction: oneReversed, signedDate: signedAt + 500)
            #expect(try Self.effect(reversal) == "partially-revoked 1 of 3")
            let after = try await Self.redeemed(client, jws)
            #expect(after["transaction.revokedQuantity"]?.int == 1)
            #expect(after["transaction.revocation.percentage"]?.int == 33_333)
            #expect(after["downloads"]?.array.count == 1)
        }
    }
}
