import DepotCore
import DepotTrust

/// Turns what an app presents into a verified purchase with its store's verifier: the App Store's JWS, or Google
/// Play's purchase data and signature (refused as `store-not-accepted` when Google Play is not configured). A
/// Google Play subscription takes its period from the Developer API when it is configured.
package struct PurchaseVerification: Sendable {
    let appStore: AppStoreVerifier
    let googlePlay: GooglePlayVerifier?
    let googlePlaySubscriptions: GooglePlaySubscriptionPeriod?
    let catalogs: CatalogHolder
    /// StoreKit 1 app receipts' verifier; nil when no receipt root is configured.
    let receipts: AppReceiptVerifier?
    let refused: @Sendable (_ code: String) -> Void

    /// Verification with each store's verifier; `refused` is told the code of every refusal.
    package init(
        appStore: AppStoreVerifier, googlePlay: GooglePlayVerifier?, googlePlaySubscriptions: GooglePlaySubscriptionPeriod?,
        catalogs: CatalogHolder, receipts: AppReceiptVerifier? = nil, refused: @escaping @Sendable (_ code: String) -> Void
    ) {
        self.receipts = receipts
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
                guard let googlePlaySubscriptions, catalogs.current.product(id: verified.productId)?.type == .autoRenewable
                else { return verified }
                return await googlePlaySubscriptions.withExpiry(verified)
            }
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
    }

    /// Verifies each distinct signed purchase once, and keeps one purchase per transaction (a restore may present
    /// copies of one signed purchase, or of one transaction).
    package func verifyDistinct(_ signed: [SignedPurchase]) async throws(DeliveryError) -> [VerifiedPurchase] {
        var seenSigned: Set<SignedPurchase> = []
        var seenIds: Set<String> = []
        var purchases: [VerifiedPurchase] = []
        for purchase in signed where seenSigned.insert(purchase).inserted {
            let verified = try await verify(purchase)
            if seenIds.insert(verified.id).inserted { purchases.append(verified) }
        }
        return purchases
    }

    /// The in-app purchase `transactionId` of a StoreKit 1 app receipt (base64), verified offline; refused as
    /// `store-not-configured` when no receipt root is configured, `transaction-not-in-receipt` when it holds none.
    package func verifyReceipt(_ base64: String, transactionId: String) async throws(DeliveryError) -> VerifiedPurchase {
        do throws(PurchaseRefusal) {
            guard let receipts else { throw .receiptsNotAccepted }
            return try await receipts.verifyPurchase(base64: base64, transactionId: transactionId)
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
    }

    /// Every in-app purchase of a StoreKit 1 app receipt (base64), verified offline, one per transaction id.
    package func verifyReceipt(_ base64: String) async throws(DeliveryError) -> [VerifiedPurchase] {
        do throws(PurchaseRefusal) {
            guard let receipts else { throw .receiptsNotAccepted }
            var seen: Set<String> = []
            return try await receipts.verifyPurchases(base64: base64).filter { seen.insert($0.id).inserted }
        } catch {
            refused(error.code)
            throw .purchaseRefused(error)
        }
    }
}

extension PurchaseRefusal {
    /// An app receipt sent to a server that trusts no receipt root (`appStore.receiptRoots`).
    static let receiptsNotAccepted = PurchaseRefusal(
        code: "store-not-configured", message: "this server does not accept app receipts (appStore.receiptRoots is not set)")
}
