#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

/// Why a Google Play purchase was refused, in the error table's codes.
package enum GooglePlayRefusal {
    /// The purchase data is not the JSON object Play Billing signs, or a documented field has the wrong shape.
    static func malformed(_ error: PurchaseDataError) -> PurchaseRefusal {
        PurchaseRefusal(code: "purchase-data-malformed", message: error.message)
    }

    /// The signature is not base64 of an RSA signature.
    static func signatureMalformed(_ why: String) -> PurchaseRefusal {
        PurchaseRefusal(code: "signature-malformed", message: "the Google Play signature \(why)")
    }

    /// No configured licensing key verifies the signature over the exact purchase data.
    static let signatureInvalid = PurchaseRefusal(
        code: "signature-invalid",
        message: "the Google Play signature does not verify with any of the app's licensing keys over the purchase data as sent")

    /// The purchase belongs to another app.
    static func otherPackage(_ packageName: String, expected: String) -> PurchaseRefusal {
        PurchaseRefusal(
            code: "bundle-id-mismatch", message: "the purchase is for package \(packageName), not \(expected)")
    }

    /// The purchase awaits payment (Play's pending purchases): nothing is delivered until it is purchased.
    static let pending = PurchaseRefusal(
        code: "purchase-pending",
        message: "the Google Play purchase is pending payment; present it again once Play Billing reports it purchased")

    /// The purchase is in a state other than purchased or pending.
    static func notPurchased(_ state: Int64) -> PurchaseRefusal {
        PurchaseRefusal(
            code: "purchase-not-completed", message: "the Google Play purchase is in state \(state), not purchased (0)")
    }

    /// The Play product is not mapped to a Depot product.
    static func unmapped(_ playProductId: String) -> PurchaseRefusal {
        PurchaseRefusal(
            code: "unknown-product", message: "Google Play product \(playProductId) is not mapped to a product sold here")
    }
}
