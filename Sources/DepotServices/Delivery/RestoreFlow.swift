import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// A restore: the app presents every purchase it holds; Depot answers with what they still entitle. Each
/// purchase restored counts as a redemption attempt from this client, under the same irregular-activity rule
/// as a redeem; consumables are not restored.
package struct RestoreFlow: Sendable {
    /// The most purchases one restore may carry.
    package static let maxPurchases = 1000

    /// What the delivery flows share.
    package let context: DeliveryContext
    /// When redemptions look like sharing.
    package let policy: IrregularActivityPolicy
    /// Restores per client address: a restore verifies and records many purchases at once.
    package let limiter: ClientRateLimiter

    /// A restore flow, allowing each client address the policy's restores per window.
    package init(context: DeliveryContext, policy: IrregularActivityPolicy) {
        self.context = context
        self.policy = policy
        limiter = ClientRateLimiter(capacity: policy.restoresPerClient, refillSeconds: policy.restoreWindowSeconds)
    }

    /// Admits a restore before its purchases are verified (verifying costs): at most `maxPurchases` signed
    /// purchases, a well-formed account token, and the client's restore budget, which one restore spends one of,
    /// and one more per hundred distinct purchases. Returns the account token.
    package func admit(
        signedCount: Int, distinctCount: Int, callerAccount: String?, client: String
    ) throws(DeliveryError)
        -> AccountToken?
    {
        guard signedCount <= Self.maxPurchases else { throw .tooManyTransactions(limit: Self.maxPurchases) }
        let caller = try AccountToken.parse(callerAccount)
        if let wait = limiter.spend(client: client, cost: 1 + distinctCount / 100, now: Double(context.clock())) {
            throw .restoreRateLimited(retryAfterSeconds: wait)
        }
        return caller
    }

    /// Charges the client's restore budget for the records of an app receipt: one more restore per hundred records
    /// (a receipt restore asks the App Store about each record it keeps).
    package func charge(records: Int, client: String) throws(DeliveryError) {
        guard records >= 100 else { return }
        if let wait = limiter.spend(client: client, cost: records / 100, now: Double(context.clock())) {
            throw .restoreRateLimited(retryAfterSeconds: wait)
        }
    }

    /// The purchases a restore can give anything back for, as the catalog says now: products it sells, consumables
    /// left out (the ones recorded under another type are judged again by ``restore(_:callerAccount:client:)``).
    package func restorable(_ purchases: [VerifiedPurchase]) -> [VerifiedPurchase] {
        let catalog = context.catalog
        return purchases.filter { purchase in
            guard let product = catalog.product(id: purchase.productId) else { return false }
            return product.type != .consumable
        }
    }

    /// Every transaction restored (with the proof its finish needs) and the downloads, once each.
    package struct Result: Sendable {
        /// The transactions that still entitle content, each with its finish token.
        package var transactions: [(transaction: LedgerTransaction, finishToken: String)]
        /// The downloads, once per bundle, ordered by content and version.
        package var downloads: [GrantedDownload]
    }

    /// Restores what `purchases` (distinct, verified, admitted) still entitle. `callerAccount` is the one
    /// `admit` returned.
    package func restore(
        _ purchases: [VerifiedPurchase], callerAccount: AccountToken?, client: String
    ) async throws(DeliveryError)
        -> Result
    {
        let now = context.clock()
        let ledger = context.ledger
        var transactions: [(transaction: LedgerTransaction, finishToken: String)] = []
        var byDigest: [BundleDigest: GrantedDownload] = [:]
        // Non-renewing purchases of one product restored together are one customer's: they stack even without
        // an appAccountToken.
        let restoredTogether = Dictionary(grouping: purchases.map(\.transaction), by: \.productId)
        for purchase in purchases {
            let catalog = context.catalog
            // A consumable is not restored: judged by the type it was redeemed under when it was, so it is read first.
            let known = try await context.ledgerCall { () async throws(LedgerError) in try await ledger.transaction(id: purchase.id) }
            guard catalog.product(id: purchase.productId) != nil,
                let type = catalog.judgedType(productId: purchase.productId, recorded: known?.productType), type != .consumable
            else { continue }
            let stored: LedgerTransaction
            do {
                stored = try await context.startingRentalIfServed(
                    try await context.recordRedemption(
                        purchase, client: client, callerAccount: callerAccount, policy: policy, now: now),
                    now: now)
            } catch .transactionConflict {
                // Not the purchase recorded under its id: restored as nothing, like any other refused purchase.
                continue
            } catch .purchaseRefused {
                // One purchase refused for itself (a family-shared one of a product that became a consumable): the
                // others are restored all the same.
                continue
            }
            let stacking = type == .nonRenewing ? restoredTogether[purchase.productId] ?? [] : []
            let contents: [ContentVersion]
            do {
                let audience = try await context.audience(of: stored)
                contents = try await context.entitledContents(stored, stackingWith: stacking, audience: audience)
            } catch .ledgerUnavailable {
                // Not a refusal of this purchase: a restore that cannot read the ledger says so, never answers less.
                throw .ledgerUnavailable
            } catch {
                continue
            }
            let granted = try await context.grantDownloads(
                contents.map { Offer(version: $0, delta: nil) }, of: stored, now: now)
            transactions.append((stored, context.grants.finishToken(transactionId: stored.transaction.id)))
            // Of two purchases opening one bundle (a rental and a purchase of it), the grant that lasts longer.
            for download in granted where byDigest[download.digest].map({ $0.grantExpiresAt < download.grantExpiresAt }) ?? true {
                byDigest[download.digest] = download
            }
        }
        return Result(
            transactions: transactions,
            downloads: byDigest.values.sorted { ($0.contentId, $0.version) < ($1.contentId, $1.version) })
    }
}
