import DepotCore
import Testing

@testable import DepotLedger

/// A signed transaction presented again never overrides a newer fact: a device's old JWS neither revokes a
/// purchase whose refund was reversed since, nor moves an expiry Apple changed since.
@Suite struct LedgerStaleFactTests {
    static let refundSignedAt: Int64 = Sample.purchaseMs + 10_000
    static let reversalSignedAt: Int64 = Sample.purchaseMs + 20_000

    @Test(arguments: Engine.tested)
    func aRevocationInAnOlderJWSDoesNotUndoAReversedRefund(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("8100"), now: 1)
            #expect(
                try await ledger.setRevocation(
                    transactionId: "8100", revokedAt: Self.refundSignedAt, reason: "REFUND", signedAt: Self.refundSignedAt, now: 2))
            #expect(
                try await ledger.setRevocation(
                    transactionId: "8100", revokedAt: nil, reason: "REFUND_REVERSED", signedAt: Self.reversalSignedAt, now: 3))

            // A JWS signed between the refund and its reversal shows the revocation: it is older than the reversal.
            var stale = Sample.transaction("8100", revoked: Self.refundSignedAt)
            stale.signedDate = Self.refundSignedAt + 1
            let afterStale = try await ledger.recordTransaction(stale, now: 4)
            #expect(afterStale.transaction.revocationDate == nil)
            #expect(try await ledger.revokedTransactionIds().isEmpty)

            // One signed after the reversal that shows a new revocation is a newer fact and applies.
            var newer = Sample.transaction("8100", revoked: Self.reversalSignedAt + 5)
            newer.signedDate = Self.reversalSignedAt + 10
            let afterNewer = try await ledger.recordTransaction(newer, now: 5)
            #expect(afterNewer.transaction.revocationDate == Self.reversalSignedAt + 5)

            // ... and it is now the last fact: a REFUND_REVERSED retried with its old signedDate changes nothing.
            _ = try await ledger.setRevocation(
                transactionId: "8100", revokedAt: nil, reason: "REFUND_REVERSED", signedAt: Self.reversalSignedAt, now: 6)
            #expect(try await ledger.revokedTransactionIds() == ["8100"])
        }
    }

    @Test(arguments: Engine.tested)
    func anOlderJWSDoesNotMoveTheExpiryBack(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let month: Int64 = 30 * 86_400_000
            _ = try await ledger.recordTransaction(
                Sample.transaction("8200", product: "com.example.monthly", expires: Sample.purchaseMs + month), now: 1)
            _ = try await ledger.setRevocation(
                transactionId: "8200", revokedAt: nil, reason: "REFUND_REVERSED", signedAt: Self.reversalSignedAt, now: 2)
            var extended = Sample.transaction("8200", product: "com.example.monthly", expires: Sample.purchaseMs + 2 * month)
            extended.signedDate = Self.reversalSignedAt + 1
            #expect(try await ledger.recordTransaction(extended, now: 3).transaction.expiresDate == Sample.purchaseMs + 2 * month)

            var old = Sample.transaction("8200", product: "com.example.monthly", expires: Sample.purchaseMs + month)
            old.signedDate = Self.reversalSignedAt - 1
            #expect(try await ledger.recordTransaction(old, now: 4).transaction.expiresDate == Sample.purchaseMs + 2 * month)
        }
    }

    @Test func mergeTable() {
        let known = PresentedFacts(revocationDate: nil, expiresDate: 100, lastFactSignedDate: 50)
        func presented(signed: Int64?, revoked: Int64? = nil, expires: Int64? = nil) -> PurchaseTransaction {
            var t = Sample.transaction("1", expires: expires, revoked: revoked)
            t.signedDate = signed
            return t
        }
        // Stale (signed at or before the last fact): nothing changes.
        #expect(PresentedFacts.merge(known: known, presented: presented(signed: 50, revoked: 40, expires: 200)) == known)
        // Newer: the revocation and expiry apply, and the revocation becomes the last fact.
        #expect(
            PresentedFacts.merge(known: known, presented: presented(signed: 60, revoked: 55, expires: 200))
                == PresentedFacts(revocationDate: 55, expiresDate: 200, lastFactSignedDate: 60))
        // Newer without a revocation: expiry moves, the last fact stays.
        #expect(
            PresentedFacts.merge(known: known, presented: presented(signed: 60, expires: 200))
                == PresentedFacts(revocationDate: nil, expiresDate: 200, lastFactSignedDate: 50))
        // No signedDate (older records, tests): never stale, never a known revocation undone.
        let revoked = PresentedFacts(revocationDate: 7, expiresDate: nil, lastFactSignedDate: nil)
        #expect(PresentedFacts.merge(known: revoked, presented: presented(signed: nil)) == revoked)
        #expect(PresentedFacts.firstSight(presented(signed: 9, revoked: 8)) == 9)
        #expect(PresentedFacts.firstSight(presented(signed: 9)) == nil)
    }
}
