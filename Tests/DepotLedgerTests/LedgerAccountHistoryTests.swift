import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the transactions of an account, as a restore by account lists them, on every engine.
@Suite struct LedgerAccountHistoryTests {
    static let alice = "9f0c4e4a-6c2b-4a8e-9d0e-0a4b7c1d2e3f"
    static let bob = "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9"

    @Test(arguments: Engine.tested)
    func anAccountsTransactionsAreListedNewestFirstByTheirSignedToken(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let day: Int64 = 86_400_000
            // Alice's purchases across products (one signed with the token in capitals, as a store may write it).
            let a1 = Sample.transaction("5001", purchase: Sample.purchaseMs, token: Self.alice)
            let a2 = Sample.transaction("5002", product: "com.example.coins", purchase: Sample.purchaseMs + day, token: Self.alice)
            let a3 = Sample.transaction(
                "5003", product: "com.example.monthly", purchase: Sample.purchaseMs + 2 * day, token: Self.alice.uppercased())
            let b1 = Sample.transaction("5004", purchase: Sample.purchaseMs + 3 * day, token: Self.bob)
            let none = Sample.transaction("5005", purchase: Sample.purchaseMs + 4 * day)
            for (index, t) in [a2, b1, a1, none, a3].enumerated() {
                _ = try await ledger.recordTransaction(t, productType: nil, now: Int64(index))
            }
            let listed = try await ledger.transactions(appAccountToken: Self.alice, limit: 10)
            #expect(listed.map(\.transaction.id) == ["5003", "5002", "5001"])
            #expect(
                try await ledger.transactions(appAccountToken: Self.alice.uppercased(), limit: 10).map(\.transaction.id) == [
                    "5003", "5002", "5001",
                ])
            #expect(try await ledger.transactions(appAccountToken: Self.alice, limit: 2).map(\.transaction.id) == ["5003", "5002"])
            #expect(try await ledger.transactions(appAccountToken: Self.alice, limit: 0).isEmpty)
            #expect(try await ledger.transactions(appAccountToken: Self.bob, limit: 10).map(\.transaction.id) == ["5004"])
            #expect(try await ledger.transactions(appAccountToken: "00000000-0000-4000-8000-000000000000", limit: 10).isEmpty)
            // Ties on the purchase date are ordered by id, descending.
            let tie = Sample.transaction("5000", purchase: Sample.purchaseMs, token: Self.alice)
            _ = try await ledger.recordTransaction(tie, productType: nil, now: 9)
            #expect(
                try await ledger.transactions(appAccountToken: Self.alice, limit: 10).map(\.transaction.id) == [
                    "5003", "5002", "5001", "5000",
                ])
        }
    }

    @Test(arguments: Engine.tested)
    func anAccountClaimedAtARedeemNeverListsAnotherAccountsPurchase(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // Bob's signed purchase, redeemed by someone who claims to be Alice: the attempt keeps Alice's claim, the
            // transaction Bob's signed token; only the signed one lists it.
            _ = try await ledger.recordRedemption(
                Sample.transaction("6001", token: Self.bob), productType: nil, appAccountToken: Self.alice, client: "192.0.2.1",
                activitySince: 0, now: 10)
            // A purchase signed without a token, redeemed with a claimed account: listed for nobody.
            _ = try await ledger.recordRedemption(
                Sample.transaction("6002"), productType: nil, appAccountToken: Self.alice, client: "192.0.2.1", activitySince: 0,
                now: 11)
            #expect(try await ledger.transactions(appAccountToken: Self.alice, limit: 10).isEmpty)
            #expect(try await ledger.transactions(appAccountToken: Self.bob, limit: 10).map(\.transaction.id) == ["6001"])
            // Presented again without its token, the purchase keeps the signed one.
            _ = try await ledger.recordTransaction(Sample.transaction("6001"), productType: nil, now: 12)
            #expect(try await ledger.transactions(appAccountToken: Self.bob, limit: 10).map(\.transaction.id) == ["6001"])
        }
    }
}
