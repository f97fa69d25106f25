@testable import DepotServerTestSupport
import DepotTrust
import Testing

@testable import DepotServer

/// The in-memory revocation list against its periodic refresh from the ledger: a change made here while the
/// ledger was being read (a consumable finished, a refund, a reversal) is not undone by that read.
@Suite("Revocation list refreshes")
struct RevocationListTests {
    @Test func aRevocationIsPurgedOnceUntilItIsReinstated() {
        let list = RevocationList()
        list.revoke("t1")
        #expect(list.claimPurge(of: "t1"))
        // The ledger refresh learning of the same revocation a moment later does not purge it again.
        #expect(!list.claimPurge(of: "t1"))
        #expect(list.claimPurge(of: "t2"))
        list.reinstate("t1")
        list.revoke("t1")
        #expect(list.claimPurge(of: "t1"), "a refund reversed and revoked again is purged again")
    }

    @Test func aRevocationMadeDuringTheLedgerReadSurvivesTheRefresh() {
        let list = RevocationList(["1"])
        let mark = list.mark()
        // The ledger is read (it does not know of "2" yet); meanwhile a finish revokes "2".
        let read: Set<String> = ["1"]
        list.revoke("2")
        let added = list.replace(with: read, readSince: mark)
        #expect(list.isRevoked(transactionId: "2"))
        #expect(added.isEmpty)
        // The next refresh sees the ledger with "2" recorded.
        let next = list.mark()
        list.replace(with: ["1", "2"], readSince: next)
        #expect(list.isRevoked(transactionId: "2"))
    }

    @Test func aReinstatementMadeDuringTheLedgerReadSurvivesTheRefresh() {
        let list = RevocationList(["1"])
        let mark = list.mark()
        list.reinstate("1")
        list.replace(with: ["1"], readSince: mark)
        #expect(!list.isRevoked(transactionId: "1"))
    }

    @Test func theLedgerDecidesForChangesMadeBeforeItsRead() {
        let list = RevocationList()
        list.revoke("3")
        let mark = list.mark()
        // Read after the change: the ledger's view wins (another instance reinstated "3", say).
        let added = list.replace(with: ["4"], readSince: mark)
        #expect(!list.isRevoked(transactionId: "3"))
        #expect(list.isRevoked(transactionId: "4"))
        #expect(added == ["4"])
    }
}
