import DepotCore
import DepotLedger
import Logging

extension DeliveryService {
    /// After a subscription purchase is revoked, refuses the grants its siblings hold for content they no
    /// longer entitle: a renewal redeemed while an earlier period was paid for was granted that period's
    /// issues, and a refund of the earlier period takes them back from every sibling, not only from the
    /// refunded transaction. Grants of what a sibling still entitles keep working.
    ///
    /// Best effort: a ledger failure is logged, and the grants concerned expire with their lifetime anyway.
    func refuseSiblingGrants(of revokedId: String) async {
        do {
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
                let entitled = Set(((try? await entitledContents(stored)) ?? []).map(\.contentId))
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
}
