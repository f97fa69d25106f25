import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// A redeem: the app presents a verified purchase, Depot records it and answers with grants for the
/// downloads it entitles (a delta where the app has an older version installed).
package struct RedemptionFlow: Sendable {
    /// What the delivery flows share.
    package let context: DeliveryContext
    /// When redemptions look like sharing.
    package let policy: IrregularActivityPolicy

    /// A redeem flow.
    package init(context: DeliveryContext, policy: IrregularActivityPolicy) {
        self.context = context
        self.policy = policy
    }

    /// One redeem, as the app asks it.
    package struct Command: Sendable {
        /// The purchase its store's verifier checked.
        package var purchase: VerifiedPurchase
        /// The version of each content the app has installed, by content id.
        package var installed: [String: String]
        /// The app's own account identity, when it sent one.
        package var callerAccount: AccountToken?
        /// The client's address.
        package var client: String

        /// A redeem command.
        package init(purchase: VerifiedPurchase, installed: [String: String], callerAccount: AccountToken?, client: String) {
            self.purchase = purchase
            self.installed = installed
            self.callerAccount = callerAccount
            self.client = client
        }
    }

    /// The transaction as recorded, the proof a finish needs, and the downloads granted.
    package struct Result: Sendable {
        /// The transaction as the ledger holds it now.
        package var transaction: LedgerTransaction
        /// The proof a finish of this transaction needs.
        package var finishToken: String
        /// The downloads, each with a fresh grant.
        package var downloads: [GrantedDownload]
        /// For a pre-order redeemed before its content is released: when it is (seconds since 1970).
        package var availableFrom: Int64?
    }

    /// Redeems one purchase.
    package func redeem(_ command: Command) async throws(DeliveryError) -> Result {
        let now = context.clock()
        let stored = try await context.startingRentalIfServed(
            try await context.recordRedemption(
                command.purchase, client: command.client, callerAccount: command.callerAccount, policy: policy, now: now),
            now: now)
        let audience = try await context.audience(of: stored)
        let contents = try await context.entitledContents(stored, audience: audience)
        let catalog = context.catalog
        let offers = contents.map { version in
            Offer(
                version: version,
                delta: command.installed[version.contentId].flatMap {
                    catalog.delta(productId: version.productId, contentId: version.contentId, from: $0, to: version.version)
                })
        }
        let downloads = try await context.grantDownloads(offers, of: stored, now: now)
        context.logger.info(
            "transaction redeemed",
            metadata: [
                "transaction": "\(stored.transaction.id)", "product": "\(stored.transaction.productId)",
                "store": "\(command.purchase.store.rawValue)", "state": "\(stored.state)", "downloads": "\(downloads.count)",
            ])
        return Result(
            transaction: stored, finishToken: context.grants.finishToken(transactionId: stored.transaction.id),
            downloads: downloads, availableFrom: downloads.isEmpty ? context.preOrderAvailableFrom(stored, now: now) : nil)
    }
}
