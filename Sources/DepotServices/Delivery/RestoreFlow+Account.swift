import DepotCore
import DepotLedger
import DepotTrust

extension RestoreFlow {
    /// The most transactions a restore by account answers: the account's newest purchases.
    package static let maxAccountTransactions = 1000

    /// One transaction of an account as a restore by account answers it.
    package struct AccountEntry: Sendable {
        /// The transaction as the ledger holds it.
        package var transaction: LedgerTransaction
        /// The proof its finish needs; nil for history, which has nothing to deliver.
        package var finishToken: String?
        /// What it is when it is history the device no longer sees; nil for a purchase that still entitles.
        package var history: PurchaseHistory?
    }

    /// What a restore by account answers.
    package struct AccountResult: Sendable {
        /// The account's transactions, newest purchase first, at most ``RestoreFlow/maxAccountTransactions``.
        package var entries: [AccountEntry]
        /// The downloads, once per bundle, ordered by content and version.
        package var downloads: [GrantedDownload]
        /// Whether the account holds more transactions than were answered (the oldest were left out).
        package var truncated: Bool
    }

    /// Lists what the ledger holds for `account` (a proven account: the caller verified the studio's assertion),
    /// across both stores: the transactions whose store-signed app account token it is. Each still entitling
    /// something (a non-consumable, an unfinished consumable, which is still owed, a subscription's issues) is
    /// answered with its downloads and finish token; consumed, expired and revoked ones are marked as history,
    /// consumed and revoked ones without downloads (an expired subscription keeps the issues of its periods). The
    /// client's restore budget is charged one more restore per hundred transactions listed. Each transaction
    /// answered with downloads counts as a redemption attempt by `account` from `client`, under the same
    /// irregular-activity rule as a redeem; one slowed down is left out of the answer. Transactions named in `skipping` (answered already, from the signed
    /// purchases of the same restore) are left out.
    ///
    /// `accepts` tells whether a listed purchase would be accepted if presented now (``PurchaseVerification/acceptsNow(_:)``):
    /// one that would not (its environment no longer accepted) is left out.
    package func restore(
        account: AccountToken, client: String, skipping: Set<String> = [],
        accepts: @Sendable (PurchaseTransaction) -> Bool = { _ in true }
    ) async throws(DeliveryError) -> AccountResult {
        let now = context.clock()
        let ledger = context.ledger
        let limit = Self.maxAccountTransactions
        let listed = try await context.ledgerCall { () async throws(LedgerError) in
            try await ledger.transactions(appAccountToken: account.value, limit: limit + 1)
        }
        let truncated = listed.count > limit
        let stored = Array(listed.prefix(limit))
        try charge(records: stored.count, client: client)
        var entries: [AccountEntry] = []
        var byDigest: [BundleDigest: GrantedDownload] = [:]
        var relatedByKey: [String: [PurchaseTransaction]] = [:]
        for item in stored where !skipping.contains(item.transaction.id) {
            let catalog = context.catalog
            guard let product = catalog.product(id: item.transaction.productId), let type = item.judgedType(in: catalog)
            else { continue }
            // A subscription's renewals (or stacking purchases) are read once per subscription.
            let key = "\(type.rawValue)|\(type == .nonRenewing ? item.transaction.productId : item.transaction.originalId)"
            let related: [PurchaseTransaction]
            if let known = relatedByKey[key] {
                related = known
            } else {
                related = try await context.relatedTransactions(item.transaction, type: type)
                relatedByKey[key] = related
            }
            let history = PurchaseHistory.of(
                item.transaction, type: type, isFinished: item.state == .finished, related: related,
                periodSeconds: product.periodSeconds, now: now * 1000)
            // One this server would no longer accept if presented (its environment's trust withdrawn) is left out.
            guard accepts(item.transaction) else { continue }
            if history == .consumed || history == .revoked {
                entries.append(AccountEntry(transaction: item, finishToken: nil, history: history))
                continue
            }
            // Counted as an attempt, as a restore of the signed purchase would be: one account restored from many
            // places is flagged and slowed down like one purchase shared.
            let recorded = try await context.ledgerCall { () async throws(LedgerError) in
                try await ledger.recordAttempt(
                    transactionId: item.transaction.id, appAccountToken: account.value, client: client,
                    activitySince: now - policy.windowSeconds, now: now)
            }
            guard let recorded else { continue }
            do {
                try context.checkActivity(recorded, policy: policy, now: now)
            } catch {
                // Slowed down for itself, it is left out, never the whole restore: anyone can buy under an account id
                // they know and share that purchase until it is flagged, and must not stop the account's restores so.
                continue
            }
            // A rental's clock starts here as at any redeem or restore once every offered bundle was served in full.
            let current = try await context.startingRentalIfServed(recorded.transaction, now: now)
            let contents: [ContentVersion]
            do {
                let audience = try await context.audience(of: current)
                contents = try await context.entitledContents(current, audience: audience)
            } catch .ledgerUnavailable {
                throw .ledgerUnavailable
            } catch .revoked {
                entries.append(AccountEntry(transaction: current, finishToken: nil, history: .revoked))
                continue
            } catch .consumableFinished {
                entries.append(AccountEntry(transaction: current, finishToken: nil, history: .consumed))
                continue
            } catch {
                continue
            }
            let id = item.transaction.id
            var granted: [GrantedDownload] = []
            if !contents.isEmpty {
                do {
                    granted = try await context.grantDownloads(contents.map { Offer(version: $0, delta: nil) }, of: current, now: now)
                } catch .bundleUnavailable {
                    // One purchase whose bundle cannot be served now is left out, never the account's whole restore.
                    continue
                }
            }
            entries.append(
                AccountEntry(transaction: current, finishToken: context.grants.finishToken(transactionId: id), history: history))
            // Of two purchases opening one bundle (a rental and a purchase of it), the grant that lasts longer.
            for download in granted where byDigest[download.digest].map({ $0.grantExpiresAt < download.grantExpiresAt }) ?? true {
                byDigest[download.digest] = download
            }
        }
        return AccountResult(
            entries: entries, downloads: byDigest.values.sorted { ($0.contentId, $0.version) < ($1.contentId, $1.version) },
            truncated: truncated)
    }
}
