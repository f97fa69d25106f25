import DepotCore
import DepotLedger
import DepotTrust
import Logging

extension DeliveryContext {
    /// Records a redemption attempt (redeem or restore) and the transaction, applies a revocation it carries
    /// to the grants already out at once, and slows the transaction down when its redemptions look like sharing.
    /// The attempt counts the caller's own account when the app sends one (the signed token is fixed at
    /// purchase, so it cannot tell accounts apart), else the signed one.
    func recordRedemption(
        _ purchase: VerifiedPurchase, client: String, callerAccount: String?, policy: IrregularActivityPolicy, now: Int64
    ) async throws(DeliveryError) -> LedgerTransaction {
        let transaction = purchase.transaction
        let account = callerAccount ?? transaction.appAccountToken?.lowercased()
        // First seen, the transaction keeps the type it is redeemed under now.
        let type = catalog.product(id: transaction.productId)?.type
        let (stored, previousAttempt) = try await ledgerCall { () async throws(LedgerError) in
            // The previous attempt is read before this one is recorded, so attempts within one second count.
            let previous = try await ledger.lastAttempt(transactionId: transaction.id, before: Int64.max)
            try await ledger.recordAttempt(transactionId: transaction.id, appAccountToken: account, client: client, now: now)
            return (try await ledger.recordTransaction(transaction, productType: type, now: now), previous)
        }
        if stored.transaction.isRevoked, !revocations.isRevoked(transactionId: stored.transaction.id) {
            await purchaseRevoked(stored.transaction.id)
        }
        try await checkActivity(transactionId: transaction.id, previousAttempt: previousAttempt, policy: policy, now: now)
        return stored
    }

    /// Flags a transaction redeemed by too many accounts or from too many addresses within the policy's window
    /// (logged, listed at `/v1/admin/irregular`), and refuses its redemptions that come sooner than the policy's
    /// wait after the last one.
    private func checkActivity(
        transactionId: String, previousAttempt: Int64?, policy: IrregularActivityPolicy, now: Int64
    ) async throws(DeliveryError) {
        let activity = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.activity(transactionId: transactionId, since: now - policy.windowSeconds)
        }
        let verdict = policy.verdict(
            accounts: activity.appAccountTokens, addresses: activity.clientAddresses, previousAttempt: previousAttempt,
            now: now)
        guard verdict != .regular else { return }
        logger.warning(
            "irregular activity",
            metadata: [
                "transaction": "\(transactionId)", "accounts": "\(activity.appAccountTokens)",
                "addresses": "\(activity.clientAddresses)",
            ])
        if case .slowedDown(let wait) = verdict { throw .irregularActivity(retryAfterSeconds: wait) }
    }
}
