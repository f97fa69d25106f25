import DepotCore
import DepotLedger
import DepotTrust
import Foundation

/// Turns what an app presents into a verified purchase with its store's verifier: the App Store's JWS, or Google
/// Play's purchase data and signature (refused as `store-not-accepted` when Google Play is not configured). A
/// Google Play subscription takes its period from the Developer API when it is configured, and every Google Play
/// purchase its type (test, promo, rewarded); a test purchase is refused where test purchases are not accepted.
package struct PurchaseVerification: Sendable {
    let appStore: AppStoreVerifier
    let googlePlay: GooglePlayVerifier?
    let googlePlaySubscriptions: GooglePlaySubscriptionPeriod?
    let catalogs: CatalogHolder
    /// StoreKit 1 app receipts' verifier; nil when no receipt root is configured.
    let receipts: AppReceiptVerifier?
    /// The App Store Server API's word on a receipt's purchases; nil when it is not configured (the receipt alone
    /// decides).
    let receiptLookup: ReceiptTransactionLookup?
    let refused: @Sendable (_ code: String) -> Void
    /// Where a Google Play purchase already judged a rental or not is read, so that Google is not asked again; nil
    /// asks Google every time.
    let ledger: (any Ledger)?

    /// Verification with each store's verifier; `refused` is told the code of every refusal.
    package init(
        appStore: AppStoreVerifier, googlePlay: GooglePlayVerifier?, googlePlaySubscriptions: GooglePlaySubscriptionPeriod?,
        catalogs: CatalogHolder, receipts: AppReceiptVerifier? = nil, receiptLookup: ReceiptTransactionLookup? = nil,
        ledger: (any Ledger)? = nil, refused: @escaping @Sendable (_ code: String) -> Void
    ) {
        self.ledger = ledger
        self.receipts = receipts
        self.receiptLookup = receiptLookup
        self.appStore = appStore
        self.googlePlay = googlePlay
        self.googlePlaySubscriptions = googlePlaySubscriptions
        self.catalogs = catalogs
        self.refused = refused
    }

    /// Whether Google Play's Developer API is asked (and so acknowledges Play purchases).
    package var callsGooglePlay: Bool { googlePlaySubscriptions != nil }

    /// The verified purchase, or the store's refusal.
    package func verify(_ signed: SignedPurchase) async throws(DeliveryError) -> VerifiedPurchase {
        do throws(PurchaseRefusal) {
            switch signed.store {
            case .appStore:
                return try await appStore.verifyPurchase(signed)
            case .googlePlay:
                guard let googlePlay else { throw .storeNotAccepted(.googlePlay) }
                let verified = try await googlePlay.verifyPurchase(signed)
                let judged = try checkEnvironment(await askGoogle(verified), of: googlePlay)
                return try await rented(judged, of: googlePlay)
            }
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
    }

    /// A Google Play purchase as the Developer API holds it, when it is configured: a subscription's period, and
    /// every purchase's type (`GooglePlayPurchaseType`); and whether Google answered.
    private func askGoogle(_ verified: VerifiedPurchase) async -> (purchase: VerifiedPurchase, askedGoogle: Bool) {
        guard let googlePlaySubscriptions else { return (verified, false) }
        if catalogs.current.product(id: verified.productId)?.type == .autoRenewable {
            return await googlePlaySubscriptions.withExpiry(verified)
        }
        return await GooglePlayPurchaseType(client: googlePlaySubscriptions.client, logger: googlePlaySubscriptions.logger)
            .judged(verified, now: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// A Google Play purchase of a product with a named rent option, judged a rental or not by the Developer API
    /// (`GooglePlayRentalCheck`) the first time, by the ledger's record of that judgement after (so that a settled
    /// purchase is not refused while Google cannot be asked); other purchases as they are (a product only rented is
    /// judged by its verifier).
    private func rented(_ purchase: VerifiedPurchase, of verifier: GooglePlayVerifier) async throws(PurchaseRefusal) -> VerifiedPurchase {
        guard let playId = purchase.transaction.storeProductId, let option = verifier.rentals[playId], option.purchaseOptionId != nil
        else { return purchase }
        if let judged = await judgedBefore(purchase) { return judged }
        guard let googlePlaySubscriptions else {
            // The configuration refuses a named rent option without the Developer API; never a rental taken for a purchase.
            throw PurchaseRefusal(code: "unavailable", message: "this server cannot ask Google Play whether this purchase is a rental")
        }
        return try await GooglePlayRentalCheck(client: googlePlaySubscriptions.client, logger: googlePlaySubscriptions.logger)
            .judged(purchase, option: option)
    }

    /// `purchase` with the rental terms the ledger recorded for it (none: it was judged bought outright), when the
    /// ledger holds it; nil when it does not, or cannot be read now (Google is asked then).
    private func judgedBefore(_ purchase: VerifiedPurchase) async -> VerifiedPurchase? {
        guard let ledger, let stored = try? await ledger.transaction(id: purchase.id) else { return nil }
        var transaction = purchase.transaction
        transaction.rental = stored.transaction.rental
        return VerifiedPurchase(store: purchase.store, transaction: transaction)
    }

    /// Refuses a Google Play test purchase where they are not accepted (`googlePlay.acceptTestPurchases`; in
    /// production they are not by default), as the App Store's Sandbox is refused: 403 `environment-not-accepted`.
    /// A purchase only the offline judgement calls a test one (no `orderId`: a promo code purchase looks the same)
    /// while Google could not be asked is answered 503 `unavailable`, to be presented again, never refused for good.
    private func checkEnvironment(
        _ judged: (purchase: VerifiedPurchase, askedGoogle: Bool), of verifier: GooglePlayVerifier
    ) throws(PurchaseRefusal) -> VerifiedPurchase {
        guard judged.purchase.transaction.environment == "Test", !verifier.acceptsTestPurchases else { return judged.purchase }
        if callsGooglePlay, !judged.askedGoogle {
            throw PurchaseRefusal(
                code: "unavailable",
                message: "Google Play could not be asked whether this purchase is a test one; present it again later")
        }
        throw PurchaseRefusal(
            code: "environment-not-accepted", message: "Google Play test purchases are not accepted by this server")
    }

    /// Verifies each distinct signed purchase once, and keeps one purchase per transaction (a restore may present
    /// copies of one signed purchase, or of one transaction). A purchase that cannot be judged now (refused
    /// `unavailable`: its store could not be asked) is left out, so that the others are restored; any other refusal
    /// refuses them all.
    package func verifyDistinct(_ signed: [SignedPurchase]) async throws(DeliveryError) -> [VerifiedPurchase] {
        var seenSigned: Set<SignedPurchase> = []
        var seenIds: Set<String> = []
        var purchases: [VerifiedPurchase] = []
        for purchase in signed where seenSigned.insert(purchase).inserted {
            let verified: VerifiedPurchase
            do throws(DeliveryError) {
                verified = try await verify(purchase)
            } catch {
                guard case .purchaseRefused(let refusal) = error, refusal.code == Self.unavailableCode else { throw error }
                continue
            }
            if seenIds.insert(verified.id).inserted { purchases.append(verified) }
        }
        return purchases
    }

    /// The refusal code of a purchase that cannot be judged now, to be presented again later.
    static let unavailableCode = "unavailable"

    /// The in-app purchase `transactionId` of a StoreKit 1 app receipt (base64), verified offline; refused as
    /// `store-not-configured` when no receipt root is configured, `transaction-not-in-receipt` when it holds none.
    /// `deviceId` (the app's `identifierForVendor`, as sent) must be a UUID (`invalid-device-id`) the receipt was
    /// issued to (`receipt-device-mismatch`). With the App Store Server API configured, Apple's answer decides
    /// (``ReceiptTransactionLookup``).
    package func verifyReceipt(
        _ base64: String, transactionId: String, deviceId: String? = nil
    ) async throws(DeliveryError) -> VerifiedPurchase {
        let device = try Self.device(deviceId)
        let purchase: VerifiedPurchase
        do throws(PurchaseRefusal) {
            guard let receipts else { throw .receiptsNotAccepted }
            purchase = try await receipts.verifyPurchase(base64: base64, transactionId: transactionId, deviceId: device)
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
        return try await confirmed([purchase])[0]
    }

    /// Every in-app purchase of a StoreKit 1 app receipt (base64), verified offline, one per transaction id;
    /// `deviceId` and the App Store Server API as for a redeem.
    package func verifyReceipt(_ base64: String, deviceId: String? = nil) async throws(DeliveryError) -> [VerifiedPurchase] {
        try await confirmed(try await verifyReceiptOffline(base64, deviceId: deviceId))
    }

    /// Every in-app purchase of a StoreKit 1 app receipt (base64), verified offline only, one per transaction id: the
    /// caller bounds and filters them before ``confirmed(_:)`` asks the App Store about each.
    package func verifyReceiptOffline(_ base64: String, deviceId: String? = nil) async throws(DeliveryError) -> [VerifiedPurchase] {
        let device = try Self.device(deviceId)
        do throws(PurchaseRefusal) {
            guard let receipts else { throw .receiptsNotAccepted }
            var seen: Set<String> = []
            return try await receipts.verifyPurchases(base64: base64, deviceId: device).filter { seen.insert($0.id).inserted }
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
    }

    /// `purchases` as the App Store Server API holds them, when it is configured, looked up a few at a time; the
    /// first failure is the answer.
    package func confirmed(_ purchases: [VerifiedPurchase]) async throws(DeliveryError) -> [VerifiedPurchase] {
        guard let receiptLookup, !purchases.isEmpty else { return purchases }
        let outcomes = await withTaskGroup(of: (Int, Result<VerifiedPurchase, DeliveryError>).self) { group in
            var outcomes = [Result<VerifiedPurchase, DeliveryError>?](repeating: nil, count: purchases.count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    do throws(DeliveryError) {
                        return (index, .success(try await receiptLookup.confirmed(purchases[index])))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while next < min(Self.lookupConcurrency, purchases.count) { add() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                if case .failure = outcome {
                    group.cancelAll()
                    break
                }
                if next < purchases.count { add() }
            }
            return outcomes
        }
        var confirmed: [VerifiedPurchase] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let purchase): confirmed.append(purchase)
            case .failure(let error):
                if case .purchaseRefused(let refusal) = error { refused(refusal.code) }
                throw error
            case nil: continue
            }
        }
        return confirmed
    }

    /// How many Get Transaction Info calls a restore by receipt makes at once.
    static let lookupConcurrency = 8

    /// The device id sent beside a receipt: nil when absent, a UUID in its 36-character form, else
    /// `invalid-device-id`.
    static func device(_ text: String?) throws(DeliveryError) -> UUID? {
        guard let text else { return nil }
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { throw .invalidDeviceId }
        return uuid
    }
}

extension PurchaseRefusal {
    /// An app receipt sent to a server that trusts no receipt root (`appStore.receiptRoots`).
    static let receiptsNotAccepted = PurchaseRefusal(
        code: "store-not-configured", message: "this server does not accept app receipts (appStore.receiptRoots is not set)")
}

extension PurchaseVerification {
    /// Whether a purchase the ledger holds would be accepted if it were presented now: its store is served, and its
    /// environment is one the store's verifier accepts (an App Store environment in `appStore.environments`; a Play
    /// test purchase only while test purchases are accepted). A restore by account delivers from the ledger alone,
    /// so trust the operator withdrew (Sandbox, test purchases) must not keep delivering through it.
    package func acceptsNow(_ transaction: PurchaseTransaction) -> Bool {
        switch transaction.store {
        case .appStore:
            return appStore.acceptedEnvironments.contains(transaction.environment)
        case .googlePlay:
            guard let googlePlay else { return false }
            return transaction.environment != "Test" || googlePlay.acceptsTestPurchases
        }
    }
}
