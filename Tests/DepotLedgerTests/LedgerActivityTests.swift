import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: redemption attempts, the latest attempt, and the irregular-activity listing, on every engine.
@Suite struct LedgerActivityTests {
    @Test(arguments: Engine.tested)
    func aRedemptionIsRecordedWithItsPreviousAttemptAndActivityInOneCall(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let purchase = PurchaseTransaction(id: "3100", originalId: "3100", productId: "com.example.levels", purchaseDate: 1_000)
            let first = try await ledger.recordRedemption(
                purchase, productType: .nonConsumable, appAccountToken: "a", client: "192.0.2.1", activitySince: 0, now: 100)
            #expect(first.previousAttempt == nil)
            #expect(first.activity == RedemptionActivity(appAccountTokens: 1, clientAddresses: 1))
            #expect(first.transaction.transaction.id == "3100")
            #expect(first.transaction.productType == .nonConsumable)
            #expect(first.transaction.state == .pending)
            // Presented again from another account and address: the type first seen stays, the attempt before is
            // the first one, and both attempts count.
            let second = try await ledger.recordRedemption(
                purchase, productType: .consumable, appAccountToken: "b", client: "192.0.2.2", activitySince: 0, now: 100)
            #expect(second.previousAttempt == 100)
            #expect(second.activity == RedemptionActivity(appAccountTokens: 2, clientAddresses: 2))
            #expect(second.transaction.productType == .nonConsumable)
            // A window that starts after the first attempts counts only this one.
            let third = try await ledger.recordRedemption(
                purchase, productType: nil, appAccountToken: nil, client: "192.0.2.3", activitySince: 150, now: 200)
            #expect(third.previousAttempt == 100)
            #expect(third.activity == RedemptionActivity(appAccountTokens: 0, clientAddresses: 1))
            #expect(try await ledger.transaction(id: "3100") == third.transaction)
        }
    }

    @Test(arguments: Engine.tested)
    func attemptsAreCountedAndIrregularTransactionsListed(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // 3000: one account from two addresses. 3001: four accounts. 3002: eleven addresses.
            try await ledger.attempt("3000", token: "a", client: "192.0.2.1", now: 100)
            try await ledger.attempt("3000", token: "a", client: "192.0.2.2", now: 110)
            for (index, token) in ["a", "b", "c", "d"].enumerated() {
                try await ledger.attempt("3001", token: token, client: "192.0.2.9", now: 120 + Int64(index))
            }
            for index in 0..<11 {
                try await ledger.attempt("3002", token: nil, client: "198.51.100.\(index)", now: 130)
            }
            // An old attempt outside the window does not count.
            try await ledger.attempt("3000", token: "z", client: "192.0.2.3", now: 10)

            // The window counts what came since its start; the attempt before is the latest one, whenever it was.
            let next = try await ledger.attempt("3000", token: "a", client: "192.0.2.1", now: 140, since: 50)
            #expect(next.activity == RedemptionActivity(appAccountTokens: 1, clientAddresses: 2))
            #expect(next.previousAttempt == 110)
            let whole = try await ledger.attempt("3000", token: "a", client: "192.0.2.1", now: 140, since: 0)
            #expect(whole.activity == RedemptionActivity(appAccountTokens: 2, clientAddresses: 3))

            let flagged = try await ledger.irregularTransactions(since: 50, maxAccountTokens: 3, maxClientAddresses: 10)
            #expect(flagged.map(\.transactionId) == ["3002", "3001"])
            #expect(flagged.first?.activity == RedemptionActivity(appAccountTokens: 0, clientAddresses: 11))
            #expect(flagged.last?.activity == RedemptionActivity(appAccountTokens: 4, clientAddresses: 1))
            #expect(flagged.last?.lastAttemptAt == 123)
            #expect(try await ledger.irregularTransactions(since: 200, maxAccountTokens: 3, maxClientAddresses: 10).isEmpty)
        }
    }
}
