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
        _ purchase: VerifiedPurchase, client: String, callerAccount: AccountToken?, policy: IrregularActivityPolicy, now: Int64
    ) async throws(DeliveryError) -> LedgerTransaction {
        // First seen, the transaction keeps the type it is redeemed under now. One that carries a refund or is
        // family shared is judged by the type it was first recorded under, as its entitlement is: a product whose
        // type changed since never turns an old purchase's refund or sharing into something else.
        let signed = purchase.transaction
        let type =
            signed.revocation != nil || signed.revocationDate != nil || signed.ownership == .familyShared
            ? try await judgedType(of: signed) : catalog.product(id: signed.productId)?.type
        try checkOwnership(purchase.transaction, type: type)
        let transaction = settled(purchase.transaction, type: type)
        let account = callerAccount?.value ?? transaction.appAccountToken?.lowercased()
        let ledger = ledger
        let recorded = try await ledgerCall(recording: transaction.id) { () async throws(LedgerError) in
            try await ledger.recordRedemption(
                transaction, productType: type, appAccountToken: account, client: client,
                activitySince: now - policy.windowSeconds, now: now)
        }
        let stored = recorded.transaction
        if stored.transaction.isRevoked, !revocations.isRevoked(transactionId: stored.transaction.id) {
            await purchaseRevoked(stored.transaction.id)
        }
        try checkActivity(recorded, policy: policy, now: now)
        return stored
    }

    /// Flags a transaction redeemed by too many accounts or from too many addresses within the policy's window
    /// (logged, listed at `/v1/admin/irregular`), and refuses its redemptions that come sooner than the policy's
    /// wait after the last one.
    func checkActivity(_ recorded: RecordedRedemption, policy: IrregularActivityPolicy, now: Int64) throws(DeliveryError) {
        let activity = recorded.activity
        let verdict = policy.verdict(
            accounts: activity.appAccountTokens, addresses: activity.clientAddresses, previousAttempt: recorded.previousAttempt,
            now: now)
        guard verdict != .regular else { return }
        logger.warning(
            "irregular activity",
            metadata: [
                "transaction": "\(recorded.transaction.transaction.id)", "accounts": "\(activity.appAccountTokens)",
                "addresses": "\(activity.clientAddresses)",
            ])
        if case .slowedDown(let wait) = verdict { throw .irregularActivity(retryAfterSeconds: wait) }
    }
}
