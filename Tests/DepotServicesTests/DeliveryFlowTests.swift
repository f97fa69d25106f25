import DepotCore
import DepotLedger
import DepotServices
import DepotTrust
import Testing

/// Redeem, finish and restore through the services alone: a verified purchase in, a domain result or a
/// `DeliveryError` out, over a real SQLite ledger.
@Suite("Delivery flows")
struct DeliveryFlowTests {
    @Test func aRedeemGrantsTheProductsContentAndAFinishTokenThatOnlyItsTransactionAccepts() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let result = try await fixture.redeem(DeliveryFlowFixture.purchase("1001", of: DeliveryFlowFixture.levels))
        #expect(result.transaction.state == .pending)
        #expect(result.downloads.map(\.digest) == [DeliveryFlowFixture.levelsVersion.digest])
        #expect(result.downloads.first?.baseVersion == nil)
        let grant = try #require(result.downloads.first?.grant)
        #expect(fixture.context.grants.isValidFinishToken(result.finishToken, transactionId: "1001"))
        // Another transaction's token is answered like an unknown transaction.
        let other = try await fixture.redeem(DeliveryFlowFixture.purchase("1002", of: DeliveryFlowFixture.levels))
        await #expect(throws: DeliveryError.unknownTransaction) {
            try await fixture.finishing.finish(.init(transactionId: "1001", finishToken: other.finishToken, delivered: []))
        }
        #expect(!grant.isEmpty)
    }

    @Test func aFinishMustConfirmWhatWasOfferedAndThenFinishesOnce() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let redeemed = try await fixture.redeem(DeliveryFlowFixture.purchase("2001", of: DeliveryFlowFixture.levels))
        await #expect(throws: DeliveryError.finishTokenRequired) {
            try await fixture.finishing.finish(.init(transactionId: "2001", finishToken: nil, delivered: []))
        }
        let wrong = ConfirmedDelivery(contentId: "levels", digest: BundleDigest(hex: String(repeating: "b", count: 64))!)
        await #expect(throws: DeliveryError.deliveryMismatch(missing: [], wrongDigest: ["levels"])) {
            try await fixture.finishing.finish(.init(transactionId: "2001", finishToken: redeemed.finishToken, delivered: [wrong]))
        }
        let right = ConfirmedDelivery(contentId: "levels", digest: DeliveryFlowFixture.levelsVersion.digest)
        let finished = try await fixture.finishing.finish(
            .init(transactionId: "2001", finishToken: redeemed.finishToken, delivered: [right]))
        #expect(finished.transaction.state == .finished)
        #expect(finished.storeFinish == .app)
        let again = try await fixture.finishing.finish(
            .init(transactionId: "2001", finishToken: redeemed.finishToken, delivered: []))
        #expect(again.transaction.state == .finished)
        // A finished non-consumable still downloads.
        let redeemedAgain = try await fixture.redeem(DeliveryFlowFixture.purchase("2001", of: DeliveryFlowFixture.levels))
        #expect(redeemedAgain.downloads.count == 1)
    }

    @Test func aFinishedConsumableIsRefusedAndItsGrantsStopWorking() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let purchase = DeliveryFlowFixture.purchase("3001", of: DeliveryFlowFixture.coins)
        let redeemed = try await fixture.redeem(purchase)
        let delivered = [ConfirmedDelivery(contentId: "coins", digest: DeliveryFlowFixture.coinsVersion.digest)]
        _ = try await fixture.finishing.finish(
            .init(transactionId: "3001", finishToken: redeemed.finishToken, delivered: delivered))
        #expect(fixture.context.revocations.isRevoked(transactionId: "3001"))
        await #expect(throws: DeliveryError.consumableFinished) { try await fixture.redeem(purchase) }
    }

    @Test func aRestoreAnswersWhatStillEntitlesAndNoConsumable() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let purchases = [
            DeliveryFlowFixture.purchase("4001", of: DeliveryFlowFixture.levels),
            DeliveryFlowFixture.purchase("4002", of: DeliveryFlowFixture.coins),
            DeliveryFlowFixture.purchase("4003", of: "com.example.unknown"),
        ]
        let caller = try fixture.restoring.admit(signedCount: 3, distinctCount: 3, callerAccount: nil, client: "192.0.2.9")
        let result = try await fixture.restoring.restore(purchases, callerAccount: caller, client: "192.0.2.9")
        #expect(result.transactions.map(\.transaction.transaction.id) == ["4001"])
        #expect(result.downloads.map(\.contentId) == ["levels"])
    }

    @Test func aRestoreIsAdmittedOnlyWithinItsLimits() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let restoring = fixture.restoring
        #expect(throws: DeliveryError.tooManyTransactions(limit: RestoreFlow.maxPurchases)) {
            try restoring.admit(signedCount: RestoreFlow.maxPurchases + 1, distinctCount: 1, callerAccount: nil, client: "a")
        }
        #expect(throws: DeliveryError.invalidAccountToken) {
            try restoring.admit(signedCount: 1, distinctCount: 1, callerAccount: "not-a-uuid", client: "a")
        }
        let account = try restoring.admit(
            signedCount: 1, distinctCount: 1, callerAccount: "6F9619FF-8B86-D011-B42D-00CF4FC964FF", client: "a")
        #expect(account?.value == "6f9619ff-8b86-d011-b42d-00cf4fc964ff")
        // The policy's restores per window, then a wait.
        for _ in 1..<fixture.policy.restoresPerClient {
            _ = try restoring.admit(signedCount: 1, distinctCount: 1, callerAccount: nil, client: "b")
        }
        _ = try restoring.admit(signedCount: 1, distinctCount: 1, callerAccount: nil, client: "a")
        var limited = false
        do {
            for _ in 0...fixture.policy.restoresPerClient {
                _ = try restoring.admit(signedCount: 1, distinctCount: 1, callerAccount: nil, client: "b")
            }
        } catch .restoreRateLimited(let wait) {
            limited = wait >= 1
        }
        #expect(limited)
    }

    @Test func aTransactionRedeemedByTooManyAccountsIsSlowedDown() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let purchase = DeliveryFlowFixture.purchase("5001", of: DeliveryFlowFixture.levels)
        var refusal: DeliveryError?
        for index in 0..<(fixture.policy.maxAccountTokens + 2) {
            let account = "00000000-0000-4000-8000-00000000000\(index)"
            do {
                _ = try await fixture.redeem(purchase, account: account)
            } catch {
                refusal = error
                break
            }
        }
        guard case .irregularActivity(let wait) = refusal else {
            Issue.record("expected irregular-activity, got \(String(describing: refusal))")
            return
        }
        #expect(wait > 0 && wait <= fixture.policy.slowDownSeconds)
    }
}
