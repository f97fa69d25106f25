import DepotAPI
import DepotCore
import DepotLedger
import DepotTrust
import Foundation
import Logging

/// The purchase-delivery flow: verify a signed transaction, record it, answer with grants for what it
/// entitles; confirm deliveries and finish; restore; follow App Store Server Notifications.
struct DeliveryService: Sendable {
    let verifier: AppStoreVerifier
    let ledger: any Ledger
    /// The catalog being served; read anew by every call, so a publish is seen at once.
    let catalogs: CatalogHolder
    let grants: GrantAuthority
    let grantLifetime: Int64
    let revocations: RevocationList
    let irregular: IrregularActivitySettings
    /// Restores per client address: a restore verifies and records many transactions at once.
    let restoreLimiter: ClientRateLimiter
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// Where the purges of revocations go (the grant checks edges keep for revoked purchases).
    let purges: PurgeQueue
    /// How Depot calls the App Store Server API; nil when it does not.
    var appStoreServerAPI: AppStoreServerAPISettings? = nil
    /// Where refused signed data is counted; nil counts nothing.
    var metrics: DepotMetrics? = nil

    /// The catalog served now.
    var catalog: Catalog { catalogs.current }

    // MARK: redeem

    func redeem(_ request: RedeemRequest, client: String) async throws(DepotError) -> Redemption {
        let caller = try Self.callerAccount(request.appAccountToken)
        let signed = try await verify(request.signedTransaction)
        let now = clock()
        let stored = try await recordRedemption(signed, client: client, callerAccount: caller, now: now)
        let contents = try await entitledContents(stored)
        let installed = Dictionary(
            (request.installed ?? []).map { ($0.contentId, $0.version) }, uniquingKeysWith: { first, _ in first })
        let offers = contents.map { version in
            Offer(
                version: version,
                delta: installed[version.contentId].flatMap {
                    catalog.delta(productId: version.productId, contentId: version.contentId, from: $0, to: version.version)
                })
        }
        let downloads = try await grantDownloads(offers, transactionId: stored.transaction.id, now: now)
        logger.info(
            "transaction redeemed",
            metadata: [
                "transaction": "\(stored.transaction.id)", "product": "\(stored.transaction.productId)",
                "state": "\(stored.state)", "downloads": "\(downloads.count)",
            ])
        return Redemption(
            transaction: Self.body(stored, finishToken: grants.finishToken(transactionId: stored.transaction.id)),
            downloads: downloads)
    }

    // MARK: finish

    /// Confirms delivery: judged against every bundle the redeems of this transaction offered
    /// (`DeliveryConfirmation`), never against the catalog of the moment. The finish token proves the caller
    /// redeemed; a wrong one is answered like an unknown transaction, so the route reveals nothing.
    func finish(transactionId: String, _ request: FinishRequest) async throws(DepotError) -> FinishConfirmation {
        guard let token = request.finishToken else {
            throw DepotError(
                .finishTokenRequired, "a finish needs \"finishToken\", from the answer to the redeem of this transaction")
        }
        let unknown = DepotError(.unknownTransaction, "no such transaction was redeemed here")
        guard grants.isValidFinishToken(token, transactionId: transactionId) else { throw unknown }
        guard let stored = try await ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: transactionId) })
        else { throw unknown }
        let appleFinish = AppleFinishMode(settings: appStoreServerAPI, environment: stored.transaction.environment)
        if stored.state == .finished {
            if appleFinish == .server {
                // Finished before the App Store Server API was configured: the answer says Depot finishes it at
                // Apple, so make it true (nothing when a job exists).
                _ = try await ledgerCall { () async throws(LedgerError) in
                    try await ledger.enqueueAppleFinish(transactionId: transactionId, now: clock())
                }
            }
            return FinishConfirmation(
                transaction: Self.body(stored), finishStoreKitTransaction: true, appleFinish: appleFinish.rawValue,
                appleFinishDetail: appleFinish.detail)
        }
        let delivered = request.delivered.map { ConfirmedDelivery(contentId: $0.contentId, digest: $0.digest) }
        // Judged by the type it was redeemed under: a product whose type changed since cannot make a bought
        // non-consumable finish as a consumable, or the reverse.
        let isConsumable = stored.judgedType(in: catalog) == .consumable
        let outcome = try await ledgerCall { () async throws(LedgerError) in
            // The outbox job commits with the delivery: a recorded finish is always finished at Apple in the end.
            try await ledger.finish(
                transactionId: transactionId, claims: delivered, requiresDelivery: isConsumable,
                enqueueAppleFinish: appleFinish == .server, now: clock())
        }
        switch outcome {
        case .finished:
            var finished = stored
            finished.state = .finished
            if isConsumable {
                // A consumable's grants work until its transaction is finished.
                revocations.revoke(transactionId)
            }
            logger.info(
                "transaction finished",
                metadata: ["transaction": "\(transactionId)", "appleFinish": "\(appleFinish.rawValue)", "delivered": "\(delivered.count)"])
            return FinishConfirmation(
                transaction: Self.body(finished), finishStoreKitTransaction: true, appleFinish: appleFinish.rawValue,
                appleFinishDetail: appleFinish.detail)
        case .mismatch(let missing, let wrongDigest):
            throw Self.mismatch(missing: missing, wrongDigest: wrongDigest)
        case .unknownTransaction:
            throw unknown
        case .nothingOffered:
            throw DepotError(
                .nothingDelivered, "nothing was offered for this transaction yet; redeem it and download its content before finishing")
        }
    }

    private static func mismatch(missing: [String], wrongDigest: [String]) -> DepotError {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("not confirmed: \(missing.joined(separator: ", "))") }
        if !wrongDigest.isEmpty { parts.append("wrong digest: \(wrongDigest.joined(separator: ", "))") }
        return DepotError(.deliveryMismatch, "the transaction is not finished; " + parts.joined(separator: "; "))
    }

    // MARK: restore

    /// Restores what a set of signed transactions still entitles. Copies of one JWS, or of one transaction,
    /// are verified and recorded once; each transaction's restore counts as a redemption attempt from this
    /// client, under the same irregular-activity rule as redeem.
    func restore(_ request: RestoreRequest, client: String) async throws(DepotError) -> Restoration {
        guard request.signedTransactions.count <= 1000 else {
            throw DepotError(.tooManyTransactions, "restore at most 1000 transactions at once")
        }
        let caller = try Self.callerAccount(request.appAccountToken)
        let distinctCount = Set(request.signedTransactions).count
        // One restore costs one, and one more per hundred distinct transactions it carries.
        if let wait = restoreLimiter.spend(client: client, cost: 1 + distinctCount / 100, now: Double(clock())) {
            throw DepotError(
                .restoreRateLimited, "too many restores from this address; try again in \(wait) seconds", retryAfterSeconds: wait)
        }
        var seenJWS: Set<String> = []
        var verified: [SignedTransaction] = []
        var seenIds: Set<String> = []
        for jws in request.signedTransactions where seenJWS.insert(jws).inserted {
            let signed = try await verify(jws)
            if seenIds.insert(signed.transactionId).inserted { verified.append(signed) }
        }
        let now = clock()
        var transactions: [RedeemedTransaction] = []
        var byDigest: [String: Download] = [:]
        // Non-renewing purchases of one product restored together are one customer's: they stack even
        // without an appAccountToken.
        let restoredTogether = Dictionary(grouping: verified.map(Self.purchase), by: \.productId)
        for signed in verified {
            // A consumable is not restored: judged by the type it was redeemed under when it was, so it is read first.
            let known = try await ledgerCall { () async throws(LedgerError) in try await ledger.transaction(id: signed.transactionId) }
            guard catalog.product(id: signed.productId) != nil,
                let type = catalog.judgedType(productId: signed.productId, recorded: known?.productType), type != .consumable
            else { continue }
            let stored = try await recordRedemption(signed, client: client, callerAccount: caller, now: now)
            let stacking = type == .nonRenewing ? restoredTogether[signed.productId] ?? [] : []
            guard let contents = try? await entitledContents(stored, stackingWith: stacking) else { continue }
            let offers = contents.map { Offer(version: $0, delta: nil) }
            let granted = try await grantDownloads(offers, transactionId: stored.transaction.id, now: now)
            transactions.append(Self.body(stored, finishToken: grants.finishToken(transactionId: stored.transaction.id)))
            for download in granted where byDigest[download.digest] == nil {
                byDigest[download.digest] = download
            }
        }
        return Restoration(
            transactions: transactions,
            downloads: byDigest.values.sorted { ($0.contentId, $0.version) < ($1.contentId, $1.version) })
    }

    // MARK: pieces

    /// The account the app says is redeeming, as a canonical lowercase UUID; anything else is a 400.
    static func callerAccount(_ token: String?) throws(DepotError) -> String? {
        guard let token else { return nil }
        guard token.utf8.count == 36, let uuid = UUID(uuidString: token) else {
            throw DepotError(.invalidAccountToken, "appAccountToken must be a UUID such as StoreKit's appAccountToken")
        }
        return uuid.uuidString.lowercased()
    }

    /// Records a redemption attempt (redeem or restore) and the transaction, applies a revocation it carries
    /// to the grants already out at once, and slows the transaction down when its redemptions look like sharing.
    /// The attempt counts the caller's own account when the app sends one (the signed token is fixed at
    /// purchase, so it cannot tell accounts apart), else the signed one.
    private func recordRedemption(
        _ signed: SignedTransaction, client: String, callerAccount: String?, now: Int64
    )
        async throws(DepotError) -> LedgerTransaction
    {
        let account = callerAccount ?? signed.appAccountToken?.lowercased()
        let (stored, previousAttempt) = try await ledgerCall { () async throws(LedgerError) in
            // The previous attempt is read before this one is recorded, so attempts within one second count.
            let previous = try await ledger.lastAttempt(transactionId: signed.transactionId, before: Int64.max)
            try await ledger.recordAttempt(
                transactionId: signed.transactionId, appAccountToken: account, client: client, now: now)
            // First seen, the transaction keeps the type it is redeemed under now.
            let type = catalog.product(id: signed.productId)?.type
            return (try await ledger.recordTransaction(Self.purchase(signed), productType: type, now: now), previous)
        }
        if stored.transaction.isRevoked, !revocations.isRevoked(transactionId: stored.transaction.id) {
            await purchaseRevoked(stored.transaction.id)
        }
        try await checkActivity(transactionId: signed.transactionId, previousAttempt: previousAttempt, now: now)
        return stored
    }

    private func verify(_ jws: String) async throws(DepotError) -> SignedTransaction {
        do {
            return try await verifier.verifyTransaction(jws)
        } catch {
            metrics?.verificationFailed(code: error.code.description)
            throw Self.depotError(error)
        }
    }

    /// Maps verification failures to the table's code of the same name: unreadable input is 400, another
    /// app's data or anything untrusted 403.
    static func depotError(_ error: AppStoreVerificationError) -> DepotError {
        DepotError(ErrorCode(verification: error.code), error.message)
    }

    /// The contents a stored transaction entitles now, judged by the type it was redeemed under (the catalog's
    /// when none was recorded), or the refusal as an error. `stackingWith` adds
    /// non-renewing purchases known to be the same customer's (presented together in one restore).
    func entitledContents(
        _ stored: LedgerTransaction, stackingWith: [PurchaseTransaction] = []
    ) async throws(DepotError)
        -> [ContentVersion]
    {
        let transaction = stored.transaction
        guard catalog.product(id: transaction.productId) != nil, let type = stored.judgedType(in: catalog) else {
            throw DepotError(.unknownProduct, "product \(transaction.productId) is not sold here")
        }
        var related = try await relatedTransactions(transaction, type: type)
        if type == .nonRenewing {
            let known = Set(related.map(\.id))
            related += stackingWith.filter { $0.productId == transaction.productId && !known.contains($0.id) }
        }
        let result = EntitlementRules.entitledContents(
            of: transaction, redeemedAs: stored.productType, related: related, isFinished: stored.state == .finished,
            catalog: catalog, now: clock() * 1000)
        switch result {
        case .success(let contents):
            return contents
        case .failure(.unknownProduct):
            throw DepotError(.unknownProduct, "product \(transaction.productId) is not sold here")
        case .failure(.revoked):
            throw DepotError(.revoked, "the App Store refunded or revoked this purchase")
        case .failure(.consumableFinished):
            throw DepotError(.consumableFinished, "this consumable was already delivered and finished")
        }
    }

    /// The known transactions whose periods bear on a subscription's entitlement: an auto-renewable one's
    /// renewals (same original transaction), a non-renewing one's purchases stacking under its account token.
    func relatedTransactions(
        _ transaction: PurchaseTransaction, type: ProductType
    ) async throws(DepotError)
        -> [PurchaseTransaction]
    {
        switch type {
        case .autoRenewable:
            return try await ledgerCall { () async throws(LedgerError) in try await ledger.transactions(originalId: transaction.originalId)
            }
        case .nonRenewing:
            guard let token = transaction.appAccountToken else { return [] }
            return try await ledgerCall { () async throws(LedgerError) in
                try await ledger.transactions(productId: transaction.productId, appAccountToken: token)
            }
        case .consumable, .nonConsumable, .freeSubscription:
            return []
        }
    }

    /// One content offered for download: the full bundle, or a delta over the version the app has.
    struct Offer {
        var version: ContentVersion
        var delta: DeltaBundle?
        var digest: String { delta?.digest ?? version.digest }
        var size: Int64 { delta?.size ?? version.size }
    }

    /// Records the grants in the ledger, then hands out a download with a fresh grant for each offer.
    private func grantDownloads(
        _ offers: [Offer], transactionId: String, now: Int64
    ) async throws(DepotError)
        -> [Download]
    {
        let planned = offers.map {
            PlannedDelivery(contentId: $0.version.contentId, version: $0.version.version, digest: $0.digest)
        }
        try await ledgerCall { () async throws(LedgerError) in
            try await ledger.recordGrants(transactionId: transactionId, deliveries: planned, now: now)
        }
        let expiresAt = now + grantLifetime
        return offers.map { offer in
            let grant = grants.issue(digest: offer.digest, expiresAt: expiresAt, transactionId: transactionId)
            return Download(
                contentId: offer.version.contentId, version: offer.version.version, size: offer.size, digest: offer.digest,
                url: "/v1/bundles/\(offer.digest)?grant=\(grant)", grantExpiresAt: ISO8601.format(expiresAt),
                baseVersion: offer.delta?.baseVersion)
        }
    }

    /// Slows down a transaction redeemed by too many accounts or from too many addresses within the
    /// window: it is flagged (logged, listed at `/v1/admin/irregular`) and may redeem at most once per
    /// `slowDownSeconds`; earlier attempts get 429 with Retry-After.
    private func checkActivity(transactionId: String, previousAttempt: Int64?, now: Int64) async throws(DepotError) {
        let activity = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.activity(transactionId: transactionId, since: now - irregular.windowSeconds)
        }
        guard activity.appAccountTokens > irregular.maxAccountTokens || activity.clientAddresses > irregular.maxClientAddresses
        else { return }
        logger.warning(
            "irregular activity",
            metadata: [
                "transaction": "\(transactionId)", "accounts": "\(activity.appAccountTokens)",
                "addresses": "\(activity.clientAddresses)",
            ])
        guard let last = previousAttempt, now - last < irregular.slowDownSeconds else { return }
        throw DepotError(
            .irregularActivity, "this transaction was redeemed by too many accounts or from too many places; it is slowed down",
            retryAfterSeconds: irregular.slowDownSeconds - (now - last))
    }

    func ledgerCall<T>(_ body: () async throws(LedgerError) -> T) async throws(DepotError) -> T {
        do {
            return try await body()
        } catch {
            logger.error("ledger failure", metadata: ["error": "\(error)"])
            throw DepotError(.ledgerUnavailable, "the ledger cannot be reached; try again")
        }
    }

    static func purchase(_ signed: SignedTransaction) -> PurchaseTransaction {
        PurchaseTransaction(
            id: signed.transactionId, originalId: signed.originalTransactionId, productId: signed.productId,
            purchaseDate: signed.purchaseDate, expiresDate: signed.expiresDate, revocationDate: signed.revocationDate,
            quantity: signed.quantity, appAccountToken: signed.appAccountToken, environment: signed.environment,
            signedDate: signed.signedDate)
    }

    static func body(_ stored: LedgerTransaction, finishToken: String? = nil) -> RedeemedTransaction {
        RedeemedTransaction(
            id: stored.transaction.id, originalId: stored.transaction.originalId,
            productId: stored.transaction.productId, state: stored.state.rawValue, finishToken: finishToken)
    }
}
