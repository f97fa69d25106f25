import DepotCore
import DepotLedger
import DepotTrust
import Logging

extension DeliveryContext {
    /// What a newly revoked purchase calls for, the same on every path that learns of it (a refund or revoke
    /// notification, a redeem of a signed purchase that carries a revocation, and a revocation found in the
    /// shared ledger, recorded by another instance or by `depot transactions refresh`): its grants are refused
    /// here at once, so are the grants its siblings hold for content they no longer entitle, and the edges are
    /// asked to drop the grant-check answers they keep for the purchase (its `transaction:` tag).
    ///
    /// Idempotent: a purchase learnt of twice is refused twice, which changes nothing more, and purged once.
    package func purchaseRevoked(_ transactionId: String) async {
        revocations.revoke(transactionId)
        await refuseSiblingGrants(of: transactionId)
        if revocations.claimPurge(of: transactionId) { purges.submit(PurgeTags.revoked([transactionId])) }
    }

    /// After a subscription purchase is revoked, refuses the grants its siblings hold for content they no
    /// longer entitle: a renewal redeemed while an earlier period was paid for was granted that period's
    /// issues, and a refund of the earlier period takes them back from every sibling, not only from the
    /// refunded transaction. Grants of what a sibling still entitles keep working.
    ///
    /// Best effort: a ledger failure is logged, and the grants concerned expire with their lifetime anyway.
    func refuseSiblingGrants(of revokedId: String) async {
        do {
            let catalog = self.catalog
            guard let revoked = try await ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: revokedId) }),
                catalog.product(id: revoked.transaction.productId) != nil,
                let type = revoked.judgedType(in: catalog), type == .autoRenewable || type == .nonRenewing
            else { return }
            let now = clock()
            var refusedSiblings: [String] = []
            defer { purges.submit(PurgeTags.revoked(refusedSiblings)) }
            for sibling in try await relatedTransactions(revoked.transaction, type: type)
            where sibling.id != revokedId && !sibling.isRevoked {
                guard let stored = try await ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: sibling.id) })
                else { continue }
                let offered = try await ledgerCall { () async throws(LedgerError) in try await ledger.offers(transactionId: sibling.id) }
                guard !offered.isEmpty else { continue }
                let entitled = Set(try await stillEntitled(stored).map(\.contentId))
                let refused = offered.filter { !entitled.contains($0.contentId) }.map(\.digest)
                guard !refused.isEmpty else { continue }
                revocations.refuse(transactionId: sibling.id, digests: refused, now: now)
                refusedSiblings.append(sibling.id)
                logger.info(
                    "sibling grants refused",
                    metadata: ["revoked": "\(revokedId)", "sibling": "\(sibling.id)", "bundles": "\(refused.count)"])
            }
        } catch {
            logger.warning("sibling grants not refused", metadata: ["revoked": "\(revokedId)", "error": "\(error)"])
        }
    }

    /// What a sibling still entitles: nothing once it is itself refused (revoked, finished, unknown); a ledger
    /// failure is thrown, never taken for "nothing", which would refuse every grant it holds.
    private func stillEntitled(_ stored: LedgerTransaction) async throws(DeliveryError) -> [ContentVersion] {
        do {
            return try await entitledContents(stored)
        } catch .ledgerUnavailable {
            throw .ledgerUnavailable
        } catch {
            return []
        }
    }
}
