import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: recording transactions, renewals, stacking, revocations, notifications and attempts,
/// run against every engine.
@Suite struct LedgerTransactionTests {
    @Test(arguments: Engine.tested)
    func recordKeepsFirstSightAndNeverClearsARevocation(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let t = Sample.transaction("1000")
            let first = try await ledger.recordTransaction(t, now: 100)
            #expect(first == LedgerTransaction(transaction: t, state: .pending, firstSeenAt: 100, finishedAt: nil))
            #expect(try await ledger.transaction(id: "1000") == first)
            #expect(try await ledger.transaction(id: "unknown") == nil)

            // The same transaction presented again: nothing new, first sight kept.
            #expect(try await ledger.recordTransaction(t, now: 200) == first)

            // A revocation learnt from a later signed transaction is stored ...
            var revoked = t
            revoked.revocationDate = Sample.purchaseMs + 5_000
            let afterRevocation = try await ledger.recordTransaction(revoked, now: 300)
            #expect(afterRevocation.transaction.revocationDate == Sample.purchaseMs + 5_000)
            #expect(afterRevocation.firstSeenAt == 100)

            // ... and a redemption without it does not undo it.
            let again = try await ledger.recordTransaction(t, now: 400)
            #expect(again.transaction.revocationDate == Sample.purchaseMs + 5_000)
            #expect(again.state == .pending)
            #expect(try await ledger.revokedTransactionIds() == ["1000"])

            #expect(try await ledger.events("1000") == ["redeemed", "revoked"])
            let trail = try await ledger.auditTrail(transactionId: "1000")
            #expect(trail.map(\.at) == [100, 300])
            #expect(trail.allSatisfy { $0.transactionId == "1000" })
        }
    }

    @Test(arguments: Engine.tested)
    func renewalsShareTheirOriginalIdAndMoveTheExpiry(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let month: Int64 = 30 * 86_400_000
            let first = Sample.transaction(
                "2000", original: "2000", product: "com.example.monthly", expires: Sample.purchaseMs + month)
            let renewal = Sample.transaction(
                "2001", original: "2000", product: "com.example.monthly", purchase: Sample.purchaseMs + month,
                expires: Sample.purchaseMs + 2 * month)
            let other = Sample.transaction("3000", product: "com.example.monthly", expires: Sample.purchaseMs + month)
            _ = try await ledger.recordTransaction(renewal, now: 20)
            _ = try await ledger.recordTransaction(first, now: 10)
            _ = try await ledger.recordTransaction(other, now: 30)

            #expect(try await ledger.transactions(originalId: "2000") == [first, renewal])
            #expect(try await ledger.transactions(originalId: "3000") == [other])
            #expect(try await ledger.transactions(originalId: "none").isEmpty)

            // A refreshed transaction with a later expiry (e.g. a grace period) updates it ...
            var extended = renewal
            extended.expiresDate = Sample.purchaseMs + 2 * month + 86_400_000
            #expect(try await ledger.recordTransaction(extended, now: 40).transaction == extended)
            // ... and one without an expiry keeps the known one.
            var withoutExpiry = renewal
            withoutExpiry.expiresDate = nil
            #expect(
                try await ledger.recordTransaction(withoutExpiry, now: 50).transaction.expiresDate
                    == extended.expiresDate)
            #expect(try await ledger.transaction(id: "2001")?.firstSeenAt == 20)
            #expect(try await ledger.events("2001") == ["redeemed", "expiry-updated"])
        }
    }

    @Test(arguments: Engine.tested)
    func stackedPurchasesAreFoundByProductAndAccountToken(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let alice = "9f0c4e4a-6c2b-4a8e-9d0e-0a4b7c1d2e3f"
            let bob = "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9"
            let season = "com.example.season-pass"
            let a1 = Sample.transaction("4001", product: season, token: alice)
            let a2 = Sample.transaction("4002", product: season, purchase: Sample.purchaseMs + 1_000, token: alice)
            let b1 = Sample.transaction("4003", product: season, token: bob)
            let aOther = Sample.transaction("4004", product: "com.example.other", token: alice)
            let anonymous = Sample.transaction("4005", product: season)
            for t in [a2, b1, a1, aOther, anonymous] {
                _ = try await ledger.recordTransaction(t, now: 1)
            }
            #expect(try await ledger.transactions(productId: season, appAccountToken: alice) == [a1, a2])
            #expect(try await ledger.transactions(productId: season, appAccountToken: bob) == [b1])
            #expect(try await ledger.transactions(productId: "com.example.other", appAccountToken: bob).isEmpty)
        }
    }

    @Test(arguments: Engine.tested)
    func revocationIsSetAndClearedOnlyBySetRevocation(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            #expect(
                try await ledger.setRevocation(transactionId: "nope", revokedAt: 1, reason: "REFUND", signedAt: nil, now: 1) == false)
            let t = Sample.transaction("5000")
            _ = try await ledger.recordTransaction(t, now: 10)
            _ = try await ledger.recordTransaction(Sample.transaction("5001"), now: 10)
            #expect(try await ledger.revokedTransactionIds().isEmpty)

            let revokedAt = Sample.purchaseMs + 60_000
            #expect(
                try await ledger.setRevocation(transactionId: "5000", revokedAt: revokedAt, reason: "REFUND", signedAt: nil, now: 20))
            #expect(try await ledger.revokedTransactionIds() == ["5000"])
            #expect(try await ledger.transaction(id: "5000")?.transaction.revocationDate == revokedAt)
            // Setting the same revocation again is accepted and records nothing new.
            #expect(
                try await ledger.setRevocation(transactionId: "5000", revokedAt: revokedAt, reason: "REFUND", signedAt: nil, now: 25))

            // A redemption without a revocation does not clear it.
            _ = try await ledger.recordTransaction(t, now: 30)
            #expect(try await ledger.revokedTransactionIds() == ["5000"])

            // REFUND_REVERSED clears it.
            #expect(
                try await ledger.setRevocation(
                    transactionId: "5000", revokedAt: nil, reason: "REFUND_REVERSED", signedAt: nil, now: 40))
            #expect(try await ledger.revokedTransactionIds().isEmpty)
            #expect(try await ledger.transaction(id: "5000")?.transaction.revocationDate == nil)

            let trail = try await ledger.auditTrail(transactionId: "5000")
            #expect(trail.map(\.event) == ["redeemed", "revoked", "revocation-cleared"])
            #expect(trail[1].detail.contains("REFUND"))
            #expect(trail[2].detail.contains("REFUND_REVERSED"))
        }
    }

    @Test(arguments: Engine.tested)
    func notificationsAreRecordedOncePerUUID(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("6000"), now: 1)
            let refund = NotificationRecord(
                uuid: "0f3e6d3c-8b1a-4d5e-9f2a-1b2c3d4e5f60", type: "REFUND", subtype: nil, transactionId: "6000")
            #expect(try await ledger.recordNotification(refund, now: 10))
            #expect(try await ledger.recordNotification(refund, now: 11) == false)
            var sameUUID = refund
            sameUUID.type = "DID_RENEW"
            #expect(try await ledger.recordNotification(sameUUID, now: 12) == false)

            let test = NotificationRecord(
                uuid: "7a1b2c3d-0000-4000-8000-000000000001", type: "TEST", subtype: nil, transactionId: nil)
            #expect(try await ledger.recordNotification(test, now: 13))
            #expect(try await ledger.recordNotification(test, now: 14) == false)

            let trail = try await ledger.auditTrail(transactionId: "6000")
            #expect(trail.map(\.event) == ["redeemed", "notification"])
            #expect(trail.last?.detail.contains(refund.uuid) == true)
        }
    }

    @Test(arguments: Engine.tested)
    func attemptsCountDistinctTokensAndClientsSinceATime(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            try await ledger.attempt("7000", token: "A", client: "192.0.2.1", now: 100)
            try await ledger.attempt("7000", token: "A", client: "192.0.2.2", now: 200)
            try await ledger.attempt("7000", token: "B", client: "192.0.2.1", now: 300)
            try await ledger.attempt("7001", token: "C", client: "192.0.2.9", now: 400)
            // The fourth attempt on 7000 (no token, a third address) is counted with the ones in its window.
            #expect(
                try await ledger.attempt("7000", token: nil, client: "192.0.2.3", now: 400, since: 0).activity
                    == RedemptionActivity(appAccountTokens: 2, clientAddresses: 3))
            #expect(
                try await ledger.attempt("7000", token: nil, client: "192.0.2.3", now: 400, since: 300).activity
                    == RedemptionActivity(appAccountTokens: 1, clientAddresses: 2))
            #expect(
                try await ledger.attempt("7002", token: nil, client: "192.0.2.4", now: 400, since: 401).activity
                    == RedemptionActivity(appAccountTokens: 0, clientAddresses: 0))
        }
    }
}
