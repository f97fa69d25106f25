import DepotTelemetry
import DepotAPI
import DepotCore
import DepotLedger
import DepotServices
import DepotTrust
import Foundation
import Logging

/// The transaction routes' side of the delivery flows: verifies what the app presents (`PurchaseVerification`),
/// runs the flow (`RedemptionFlow`, `FinishFlow`, `RestoreFlow`, in DepotServices) and answers in the wire
/// contract's bodies (`DepotAPI`).
struct DeliveryService: Sendable {
    /// Each store's verifier.
    let verification: PurchaseVerification
    /// What the delivery flows share.
    let context: DeliveryContext
    let redemption: RedemptionFlow
    let finishing: FinishFlow
    let restoring: RestoreFlow
    /// App Store Server Notifications, from the route and the history backfill.
    let notifications: AppStoreNotificationHandler
    /// How Depot calls the App Store Server API; nil when it does not.
    let appStoreServerAPI: AppStoreServerAPISettings?
    /// Where the versions offered and confirmed delivered are counted; nil counts nothing.
    let metrics: DepotMetrics?
    /// How a restore by account proves its account (`restore.accountAssertion`); nil: restores by account are off.
    let accountAssertions: AccountAssertionVerifier?

    init(
        verifier: AppStoreVerifier, googlePlay: GooglePlayVerifier? = nil, receipts: AppReceiptVerifier? = nil,
        receiptLookup: ReceiptTransactionLookup? = nil, context: DeliveryContext,
        irregular: IrregularActivityPolicy, appStoreServerAPI: AppStoreServerAPISettings? = nil,
        googlePlaySubscriptions: GooglePlaySubscriptionPeriod? = nil, metrics: DepotMetrics? = nil,
        accountAssertions: AccountAssertionVerifier? = nil
    ) {
        let refused: @Sendable (String) -> Void = { code in metrics?.verificationFailed(code: code) }
        let verification = PurchaseVerification(
            appStore: verifier, googlePlay: googlePlay, googlePlaySubscriptions: googlePlaySubscriptions,
            catalogs: context.catalogs, receipts: receipts, receiptLookup: receiptLookup, ledger: context.ledger,
            refused: refused)
        self.verification = verification
        self.context = context
        redemption = RedemptionFlow(context: context, policy: irregular)
        finishing = FinishFlow(
            context: context,
            storeFinishMode: { transaction in
                switch transaction.store {
                case .appStore: StoreFinishMode(settings: appStoreServerAPI, environment: transaction.environment)
                case .googlePlay: verification.callsGooglePlay ? .server : .app
                }
            })
        restoring = RestoreFlow(context: context, policy: irregular)
        notifications = AppStoreNotificationHandler(
            verifier: verifier, context: context, appStoreServerAPI: appStoreServerAPI, refused: refused)
        self.appStoreServerAPI = appStoreServerAPI
        self.metrics = metrics
        self.accountAssertions = accountAssertions
    }

    var ledger: any Ledger { context.ledger }
    var catalog: Catalog { context.catalog }
    var catalogs: CatalogHolder { context.catalogs }
    var grants: GrantAuthority { context.grants }
    var revocations: RevocationList { context.revocations }
    var purges: PurgeQueue { context.purges }
    var clock: @Sendable () -> Int64 { context.clock }
    var logger: Logger { context.logger }
    var irregular: IrregularActivityPolicy { redemption.policy }

    // MARK: redeem, finish, restore

    func redeem(_ request: RedeemRequest, client: String) async throws(DepotError) -> Redemption {
        let installed = Dictionary(
            (request.installed ?? []).map { ($0.contentId, $0.version) }, uniquingKeysWith: { first, _ in first })
        let presented = try Self.presentedPurchase(request)
        do {
            // The account token is checked before the signature is (a malformed one costs no verification).
            let account = try AccountToken.parse(request.appAccountToken)
            let purchase =
                switch presented {
                case .signed(let signed): try await verification.verify(signed)
                case .receipt(let receipt, let transactionId, let deviceId):
                    try await verification.verifyReceipt(receipt, transactionId: transactionId, deviceId: deviceId)
                }
            let result = try await redemption.redeem(
                .init(purchase: purchase, installed: installed, callerAccount: account, client: client))
            countOffers(result.downloads)
            return Redemption(
                transaction: Self.body(result.transaction, finishToken: result.finishToken, proof: presented.proof),
                downloads: result.downloads.map(Self.body), availableFrom: result.availableFrom.map(UTCTimestamp.format))
        } catch {
            throw DepotError(error)
        }
    }

    func finish(transactionId: String, _ request: FinishRequest) async throws(DepotError) -> FinishConfirmation {
        var delivered: [ConfirmedDelivery] = []
        for (index, item) in request.delivered.enumerated() {
            guard let digest = BundleDigest(hex: item.digest) else {
                throw .badRequest("delivered[\(index)].digest is not a bundle digest: 64 lowercase hexadecimal digits")
            }
            delivered.append(ConfirmedDelivery(contentId: item.contentId, digest: digest))
        }
        do {
            let result = try await finishing.finish(
                .init(transactionId: transactionId, finishToken: request.finishToken, delivered: delivered))
            if let metrics {
                for delivery in result.confirmed {
                    guard let version = catalog.version(digest: delivery.digest) else { continue }
                    metrics.versionDelivered(contentId: version.contentId, version: version.version)
                }
            }
            let store = result.transaction.transaction.store
            let detail = result.storeFinish.detail(for: store)
            return FinishConfirmation(
                transaction: Self.body(result.transaction), finishStoreKitTransaction: true,
                storeFinish: result.storeFinish.rawValue, storeFinishDetail: detail,
                appleFinish: store == .appStore ? result.storeFinish.rawValue : nil,
                appleFinishDetail: store == .appStore ? detail : nil)
        } catch {
            throw DepotError(error)
        }
    }

    /// Restores what a set of signed purchases (App Store, Google Play or both) still entitle, and with an account
    /// assertion what the ledger holds for the account it proves (`restoreAccount`). Copies of one signed purchase,
    /// or of one transaction, are verified and recorded once.
    func restore(_ request: RestoreRequest, client: String) async throws(DepotError) -> Restoration {
        if request.deviceId != nil, request.appReceipt == nil {
            throw DepotError(.badRequest, "\"deviceId\" goes with \"appReceipt\" (a StoreKit 1 app)")
        }
        if request.accountAssertion != nil, accountAssertions == nil {
            throw DepotError(
                .accountRestoreNotConfigured, "this server does not restore by account: it has no restore.accountAssertion keys")
        }
        let signed =
            request.signedTransactions.map { SignedPurchase.appStore(jws: $0) }
            + request.googlePlayPurchases.map { SignedPurchase.googlePlay(purchaseData: $0.purchaseData, signature: $0.signature) }
        // Admitted (the client's restore budget spent) before anything is verified, an account assertion included.
        let caller: AccountToken?
        do {
            caller = try restoring.admit(
                signedCount: signed.count, distinctCount: Set(signed).count, callerAccount: request.appAccountToken,
                client: client)
        } catch {
            throw DepotError(error)
        }
        let account = try request.accountAssertion.map { (token) throws(DepotError) in try provenAccount(token) }
        do throws(DeliveryError) {
            var purchases = try await verification.verifyDistinct(signed)
            var receiptIds: Set<String> = []
            if let receipt = request.appReceipt {
                // A StoreKit 1 app's purchases: every record of its receipt, within the same bound as signed ones.
                // Bounded, charged to the client's restore budget and cut to what a restore can give back before the App
                // Store is asked about each (one call per record when its API is configured).
                let known = Set(purchases.map(\.id))
                let offline = try await verification.verifyReceiptOffline(receipt, deviceId: request.deviceId)
                    .filter { !known.contains($0.id) }
                guard purchases.count + offline.count <= RestoreFlow.maxPurchases else {
                    throw DeliveryError.tooManyTransactions(limit: RestoreFlow.maxPurchases)
                }
                try restoring.charge(records: offline.count, client: client)
                let records = try await verification.confirmed(restoring.restorable(offline))
                purchases += records
                receiptIds = Set(records.map(\.id))
            }
            let result = try await restoring.restore(purchases, callerAccount: caller, client: client)
            countOffers(result.downloads)
            var answer = Restoration(
                transactions: result.transactions.map {
                    Self.body(
                        $0.transaction, finishToken: $0.finishToken,
                        proof: receiptIds.contains($0.transaction.transaction.id) ? "receipt" : nil)
                },
                downloads: result.downloads.map(Self.body))
            if let account {
                try await restoreAccount(account, client: client, into: &answer)
            }
            return answer
        } catch {
            throw DepotError(error)
        }
    }

    /// Adds what the ledger holds for a proven account to a restore's answer: its transactions not answered yet
    /// (newest first, history marked) and the downloads not answered yet.
    private func restoreAccount(_ account: AccountToken, client: String, into answer: inout Restoration) async throws(DeliveryError) {
        let answered = Set(answer.transactions.map(\.id))
        let verification = verification
        let listed = try await restoring.restore(account: account, client: client, skipping: answered) {
            verification.acceptsNow($0)
        }
        for entry in listed.entries {
            var body = Self.body(entry.transaction, finishToken: entry.finishToken)
            body.history = entry.history?.rawValue
            answer.transactions.append(body)
        }
        let digests = Set(answer.downloads.map(\.digest))
        let added = listed.downloads.filter { !digests.contains($0.digest.hex) }
        countOffers(added)
        answer.downloads += added.map(Self.body)
        if listed.truncated { answer.accountTruncated = true }
    }

    /// The account an assertion proves, or its refusal (401 `account-assertion-invalid`, saying which check failed).
    private func provenAccount(_ token: String) throws(DepotError) -> AccountToken {
        guard let accountAssertions else {
            throw DepotError(.accountRestoreNotConfigured, "this server does not restore by account")
        }
        let verified: VerifiedAccountAssertion
        do {
            verified = try accountAssertions.verify(token, now: clock())
        } catch {
            metrics?.verificationFailed(code: error.code.description)
            throw DepotError(.accountAssertionInvalid, "\(error.check): \(error.message)")
        }
        do {
            return try AccountToken(verified.account)
        } catch {
            // Not reached: the verifier takes only a canonical UUID.
            throw DepotError(.accountAssertionInvalid, "subject: the account assertion's sub is not an account UUID")
        }
    }

    // MARK: pieces

    /// Counts the version of each download offered.
    private func countOffers(_ downloads: [GrantedDownload]) {
        guard let metrics else { return }
        for download in downloads { metrics.versionOffered(contentId: download.contentId, version: download.version) }
    }

    /// The purchase a redeem presents: exactly one of `signedTransaction` (App Store), `googlePlay`, and
    /// `appReceipt` with its `transactionId` (StoreKit 1).
    static func presentedPurchase(_ request: RedeemRequest) throws(DepotError) -> PresentedProof {
        guard let receipt = request.appReceipt else {
            guard request.transactionId == nil, request.deviceId == nil else {
                throw DepotError(.badRequest, "\"transactionId\" and \"deviceId\" go with \"appReceipt\" (a StoreKit 1 purchase)")
            }
            return .signed(try signedPurchase(request))
        }
        guard request.signedTransaction == nil, request.googlePlay == nil else {
            throw DepotError(.badRequest, "a redeem carries one purchase: \"appReceipt\", \"signedTransaction\" or \"googlePlay\"")
        }
        guard let transactionId = request.transactionId, !transactionId.isEmpty else {
            throw DepotError(
                .badRequest, "a redeem of an app receipt needs \"transactionId\": the SKPaymentTransaction's transactionIdentifier")
        }
        return .receipt(receipt, transactionId: transactionId, deviceId: request.deviceId)
    }

    /// The purchase a redeem presents: exactly one of `signedTransaction` (App Store) and `googlePlay`.
    static func signedPurchase(_ request: RedeemRequest) throws(DepotError) -> SignedPurchase {
        switch (request.signedTransaction, request.googlePlay) {
        case (let jws?, nil): return .appStore(jws: jws)
        case (nil, let play?): return .googlePlay(purchaseData: play.purchaseData, signature: play.signature)
        case (nil, nil):
            throw DepotError(
                .badRequest, "a redeem needs \"signedTransaction\" (App Store) or \"googlePlay\" (Google Play)")
        case (.some, .some):
            throw DepotError(.badRequest, "a redeem carries one purchase: \"signedTransaction\" or \"googlePlay\", not both")
        }
    }

    /// What a newly revoked purchase calls for (see `DeliveryContext.purchaseRevoked`).
    func purchaseRevoked(_ transactionId: String) async {
        await context.purchaseRevoked(transactionId)
    }

    /// The contents a stored transaction entitles now, or the refusal as an error.
    func entitledContents(_ stored: LedgerTransaction) async throws(DepotError) -> [ContentVersion] {
        do {
            return try await context.entitledContents(stored)
        } catch {
            throw DepotError(error)
        }
    }

    func ledgerCall<T>(_ body: () async throws(LedgerError) -> T) async throws(DepotError) -> T {
        do {
            return try await context.ledgerCall(body)
        } catch {
            throw DepotError(error)
        }
    }

    static func body(_ stored: LedgerTransaction, finishToken: String? = nil, proof: String? = nil) -> RedeemedTransaction {
        var body = RedeemedTransaction(
            id: stored.transaction.id, store: stored.transaction.store.rawValue, originalId: stored.transaction.originalId,
            productId: stored.transaction.productId, state: stored.state.rawValue, finishToken: finishToken)
        body.proof = proof
        let transaction = stored.transaction
        body.quantity = transaction.quantity
        body.revokedQuantity = transaction.revokedQuantity
        body.ownership = transaction.ownership.rawValue
        body.revocation = revocation(of: transaction)
        // A rental bought late in 9999 ends after it: written as the last second RFC 3339 can hold.
        body.rentalEndsAt = stored.rentalEndsAt.map { UTCTimestamp.format(min($0, Self.latestWrittenTime)) }
        return body
    }

    /// What a transaction's answer says of its refund: the recorded one, or for a revocation recorded without
    /// detail (before refunds were told apart, a receipt's cancellation) a full refund, or a void at Google Play.
    static func revocation(of transaction: PurchaseTransaction) -> TransactionRevocation? {
        if let revocation = transaction.revocation {
            return TransactionRevocation(
                type: revocation.kind.rawValue, percentage: revocation.percentage,
                at: UTCTimestamp.format(seconds(revocation.at)))
        }
        guard let revokedAt = transaction.revocationDate else { return nil }
        let kind: PurchaseRevocation.Kind = transaction.store == .googlePlay ? .voided : .refundFull
        return TransactionRevocation(type: kind.rawValue, at: UTCTimestamp.format(seconds(revokedAt)))
    }

    /// 9999-12-31T23:59:59Z: the latest time an answer writes (a four-digit year).
    static let latestWrittenTime: Int64 = 253_402_300_799

    /// Whole seconds (rounded down) of a time in milliseconds since 1970.
    private static func seconds(_ milliseconds: Int64) -> Int64 {
        milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0)
    }

    static func body(_ download: GrantedDownload) -> Download {
        Download(
            contentId: download.contentId, version: download.version, size: download.size, digest: download.digest.hex,
            url: "/v1/bundles/\(download.digest)?grant=\(download.grant)", grantExpiresAt: UTCTimestamp.format(download.grantExpiresAt),
            baseVersion: download.baseVersion)
    }
}
