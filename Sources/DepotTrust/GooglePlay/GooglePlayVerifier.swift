#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif
import Crypto
import Foundation

/// Checks Play Billing purchases offline, as the app receives them: the signature over the exact purchase data
/// (RSASSA-PKCS1-v1_5, SHA-1) against one of the app's licensing keys, then the package, the purchase state and
/// the product mapping. What a valid signature proves, and what it does not, is in `docs/threat_model.md`.
package struct GooglePlayVerifier: Sendable, PurchaseVerifier {
    /// The app's package name; a purchase of another app is refused.
    package let packageName: String
    /// The app's licensing keys (more than one while a key is rotated).
    let keys: [GooglePlayLicenseKey]
    /// Play product id → Depot product id.
    package let products: [String: String]
    /// Whether test purchases (environment `Test`) are accepted: the verifier judges the environment (offline, a
    /// purchase without `orderId` is a test one), and its caller refuses a test purchase when this is false, once the
    /// Developer API, when configured, had its say.
    package let acceptsTestPurchases: Bool
    /// Play product id → its rent option, for products that are rented.
    package let rentals: [String: GooglePlayRentOption]

    /// A verifier for one app.
    package init(
        packageName: String, keys: [GooglePlayLicenseKey], products: [String: String], acceptsTestPurchases: Bool = true,
        rentals: [String: GooglePlayRentOption] = [:]
    ) {
        self.packageName = packageName
        self.keys = keys
        self.products = products
        self.acceptsTestPurchases = acceptsTestPurchases
        self.rentals = rentals
    }

    /// Google Play.
    package var store: PurchaseStore { .googlePlay }

    /// The most characters of a base64 signature read: 8,192-bit keys sign in 1,024 bytes.
    static let maximumSignatureLength = 2_048

    package func verifyPurchase(_ signed: SignedPurchase) async throws(PurchaseRefusal) -> VerifiedPurchase {
        guard case .googlePlay(let purchaseData, let signature) = signed else {
            throw .otherStore(signed.store, verifier: .googlePlay)
        }
        return try verify(purchaseData: purchaseData, signature: signature)
    }

    /// Verifies a purchase: the signature over the UTF-8 bytes of `purchaseData` exactly as given (never
    /// re-serialized or trimmed), then what the data says.
    package func verify(purchaseData: String, signature: String) throws(PurchaseRefusal) -> VerifiedPurchase {
        let data = Array(purchaseData.utf8)
        guard data.count <= GooglePlayPurchaseData.maximumLength else {
            throw GooglePlayRefusal.malformed(
                PurchaseDataError("the Google Play purchase data is longer than \(GooglePlayPurchaseData.maximumLength) bytes"))
        }
        let signatureBytes = try Self.signatureBytes(signature)
        guard keys.contains(where: { $0.signatureLength == signatureBytes.count && $0.verifies(signatureBytes, over: data) })
        else { throw GooglePlayRefusal.signatureInvalid }
        let purchase: GooglePlayPurchaseData
        do {
            purchase = try GooglePlayPurchaseData(bytes: data)
        } catch {
            throw GooglePlayRefusal.malformed(error)
        }
        guard purchase.packageName == packageName else {
            throw GooglePlayRefusal.otherPackage(purchase.packageName, expected: packageName)
        }
        switch purchase.purchaseState {
        case 0: break
        case 2, 4: throw GooglePlayRefusal.pending
        default: throw GooglePlayRefusal.notPurchased(purchase.purchaseState)
        }
        guard let productId = products[purchase.productId] else { throw GooglePlayRefusal.unmapped(purchase.productId) }
        let id = try Self.transactionId(purchase)
        var transaction = PurchaseTransaction(
            id: id, originalId: Self.originalId(of: id), productId: productId, purchaseDate: purchase.purchaseTime,
            quantity: purchase.quantity, appAccountToken: Self.accountToken(purchase.obfuscatedAccountId),
            environment: purchase.orderId == nil ? "Test" : "Production", storeProductId: purchase.productId,
            purchaseToken: purchase.purchaseToken)
        // A product only rented is rented whatever the purchase says; one with a named rent option is told by the
        // Developer API (`PurchaseVerification`), since the signed purchase data does not name its purchase option.
        if let option = rentals[purchase.productId], option.purchaseOptionId == nil { transaction.rental = option.terms }
        return VerifiedPurchase(store: .googlePlay, transaction: transaction)
    }

    /// The signature's bytes: standard base64 with its padding, as `Purchase.getSignature()` gives it (white
    /// space, which some transports add, is ignored; base64url's `-` and `_` are refused).
    static func signatureBytes(_ text: String) throws(PurchaseRefusal) -> [UInt8] {
        guard text.utf8.count <= maximumSignatureLength else {
            throw GooglePlayRefusal.signatureMalformed("is longer than \(maximumSignatureLength) characters")
        }
        let compact = text.filter { !$0.isWhitespace }
        guard !compact.isEmpty, let bytes = Data(base64Encoded: compact) else {
            throw GooglePlayRefusal.signatureMalformed("is not standard base64")
        }
        return Array(bytes)
    }

    /// The transaction id: the order id, or (a test purchase has none) the SHA-256 of the purchase token in
    /// lowercase hex.
    static func transactionId(_ purchase: GooglePlayPurchaseData) throws(PurchaseRefusal) -> String {
        guard let orderId = purchase.orderId, !orderId.isEmpty else { return tokenTransactionId(purchase.purchaseToken) }
        guard TransactionIdentifier.isAcceptable(orderId) else {
            throw GooglePlayRefusal.malformed(
                PurchaseDataError("the Google Play purchase's orderId must be \(TransactionIdentifier.rule)"))
        }
        return orderId
    }

    /// The transaction id of a purchase without an order id (a test purchase): its purchase token's SHA-256, hex.
    package static func tokenTransactionId(_ purchaseToken: String) -> String {
        Hex.lowercase(SHA256.hash(data: Array(purchaseToken.utf8)))
    }

    /// The order of a subscription's first payment: renewals are `<order id>..<n>`.
    static func originalId(of id: String) -> String {
        guard let range = id.range(of: "..") else { return id }
        return String(id[..<range.lowerBound])
    }

    /// The app's account id when it is a UUID (the form Depot's account tokens take); nil otherwise.
    static func accountToken(_ obfuscatedAccountId: String?) -> String? {
        guard let id = obfuscatedAccountId, let uuid = UUID(uuidString: id) else { return nil }
        return uuid.uuidString.lowercased()
    }
}
