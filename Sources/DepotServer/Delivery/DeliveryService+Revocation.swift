extension DeliveryService {
    /// What a newly revoked purchase calls for, the same on every path that learns of it (a REFUND or REVOKE
    /// notification, a redeem of a signed transaction that carries a revocation, and a revocation found in
    /// the shared ledger, recorded by another instance or by `depot transactions refresh`): its grants are
    /// refused here at once, so are the grants its siblings hold for content they no longer entitle, and the
    /// edges are asked to drop the grant-check answers they keep for the purchase (its `transaction:` tag).
    ///
    /// Idempotent: a purchase learnt of twice is refused twice, which changes nothing more, and purged once.
    func purchaseRevoked(_ transactionId: String) async {
        revocations.revoke(transactionId)
        await refuseSiblingGrants(of: transactionId)
        if revocations.claimPurge(of: transactionId) { purges.submit(PurgeTags.revoked([transactionId])) }
    }
}
