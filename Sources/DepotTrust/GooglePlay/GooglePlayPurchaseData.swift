import Foundation

/// The fields of a Play Billing purchase (`Purchase.getOriginalJson()`) that delivery reads. Parsed leniently
/// as Play Billing's own `Purchase` does: unknown fields are ignored; a documented field of the wrong shape is
/// refused.
package struct GooglePlayPurchaseData: Sendable, Equatable {
    /// The order id (`GPA.1234-5678-9012-34567`, with `..N` for the N-th renewal of a subscription); absent
    /// for test purchases.
    package var orderId: String?
    /// The app's package name.
    package var packageName: String
    /// The Play product id bought.
    package var productId: String
    /// When the purchase was made, in milliseconds since 1970.
    package var purchaseTime: Int64
    /// 0 purchased, 1 cancelled, 2 pending (Play's `purchaseState`).
    package var purchaseState: Int64
    /// The token that names the purchase at Google's Developer API.
    package var purchaseToken: String
    /// How many items were bought (multi-quantity purchases), 1 when absent.
    package var quantity: Int
    /// Whether the purchase was acknowledged already.
    package var acknowledged: Bool?
    /// Whether a subscription renews.
    package var autoRenewing: Bool?
    /// The account id the app attached (`BillingFlowParams.setObfuscatedAccountId`).
    package var obfuscatedAccountId: String?

    /// The most bytes of purchase data read: Play's are a few hundred.
    package static let maximumLength = 16 * 1024

    /// Reads `bytes` (the exact bytes the signature covers).
    package init(bytes: [UInt8]) throws(PurchaseDataError) {
        guard bytes.count <= Self.maximumLength else {
            throw PurchaseDataError("the Google Play purchase data is longer than \(Self.maximumLength) bytes")
        }
        guard let object = JSONValue.parseObject(bytes) else {
            throw PurchaseDataError("the Google Play purchase data is not a JSON object")
        }
        let fields = PayloadFields(object: object, kind: "Google Play purchase")
        do throws(AppStoreVerificationError) {
            orderId = try fields.optionalString("orderId")
            packageName = try fields.string("packageName")
            productId = try Self.productId(object, fields)
            purchaseTime = try fields.date("purchaseTime")
            purchaseState = try fields.optionalInt64("purchaseState") ?? 0
            if let token = try fields.optionalString("purchaseToken") {
                purchaseToken = token
            } else {
                purchaseToken = try fields.string("token")
            }
            quantity = try fields.optionalCount("quantity", in: 1...1_000_000) ?? 1
            acknowledged = try fields.optionalBool("acknowledged")
            autoRenewing = try fields.optionalBool("autoRenewing")
            obfuscatedAccountId = try fields.optionalString("obfuscatedAccountId")
        } catch {
            throw PurchaseDataError(error.message)
        }
        guard !purchaseToken.isEmpty else { throw PurchaseDataError("the Google Play purchase has an empty purchaseToken") }
    }

    /// `productId`, or the one entry of `productIds` (Play Billing 5's form for a purchase of one product).
    private static func productId(_ object: [String: JSONValue], _ fields: PayloadFields) throws(AppStoreVerificationError) -> String {
        if let single = try fields.optionalString("productId") { return single }
        guard case .array(let ids)? = object["productIds"] else { return try fields.string("productId") }
        guard ids.count == 1, case .string(let id) = ids[0] else {
            throw AppStoreVerificationError(.payloadMalformed, "the Google Play purchase's productIds must hold exactly one product id")
        }
        return id
    }
}

/// Why purchase data could not be read.
package struct PurchaseDataError: Error, Sendable, Equatable {
    /// What is wrong, as a sentence for people.
    package var message: String

    init(_ message: String) { self.message = message }
}
