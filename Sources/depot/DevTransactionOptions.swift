import ArgumentParser
import DepotCore
import DepotSettings
import DepotTrust
import Foundation

/// The options that shape a development signed transaction, shared by `depot dev sign-transaction` and
/// `depot dev sign-notification` (which signs the transaction it carries from them when not given one); each
/// command names the App Store product type its own way (`--type`, `--transaction-type`), since the notification's
/// `--type` is the notification's.
struct DevTransactionOptions: ParsableArguments {
    @Option(help: "The product identifier.")
    var product: String?

    @Option(name: .customLong("transaction-id"), help: "Transaction id (default: random digits).")
    var transactionId: String?

    @Option(name: .customLong("original-transaction-id"), help: "Original transaction id (default: the transaction id).")
    var originalTransactionId: String?

    @Option(name: .customLong("purchase-date"), help: "Purchase date, ISO 8601 (default: now).")
    var purchaseDate: String?

    @Option(help: "Expiry, ISO 8601, or a duration from the purchase such as 30d or 12h (subscriptions).")
    var expires: String?

    @Option(help: "Revocation date, ISO 8601 (a refunded purchase; default now when a revocation type or percentage is given).")
    var revoked: String?

    @Option(name: .customLong("revocation-type"), help: "REFUND_FULL, REFUND_PRORATED or FAMILY_REVOKE.")
    var revocationType: String?

    @Option(
        name: .customLong("revocation-percentage"),
        help: "Share refunded in milliunits of the whole quantity, 0-100000 (1 of 3 units: 33333).")
    var revocationPercentage: Int?

    @Option(name: .customLong("ownership-type"), help: "PURCHASED (default) or FAMILY_SHARED.")
    var ownershipType: String = "PURCHASED"

    @Option(name: .customLong("app-account-token"), help: "The app account token (a UUID).")
    var appAccountToken: String?

    @Option(help: "Environment: Production, Sandbox, Xcode, LocalTesting.")
    var environment: String = "Sandbox"

    @Option(help: "Quantity (consumables), 1-1000000.")
    var quantity: Int = 1

    /// The revocation types Apple writes.
    static let revocationTypes = ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"]

    /// The builder these options describe, for `product` in `configuration`, of the App Store `type` (nil: the
    /// product's in products.json); `revoke` signs a revocation (now, unless `--revoked` says when) even without a
    /// revocation flag.
    func builder(
        product: String, type: String?, configuration: DepotConfiguration, revoke: Bool = false
    ) throws -> DevelopmentTransactionBuilder {
        let configuredType = configuration.products.first { $0.id == product }?.type
        guard let appStoreType = type ?? configuredType.flatMap({ DevelopmentTransactionBuilder.ProductType.forDepotType($0.rawValue) })
        else {
            throw ValidationError("product \(product) is not in products.json: give --type")
        }
        guard (1...1_000_000).contains(quantity) else { throw ValidationError("--quantity must be 1 to 1000000") }
        guard ["PURCHASED", "FAMILY_SHARED"].contains(ownershipType) else {
            throw ValidationError("--ownership-type must be PURCHASED or FAMILY_SHARED")
        }
        if let revocationType, !Self.revocationTypes.contains(revocationType) {
            throw ValidationError("--revocation-type must be one of \(Self.revocationTypes.joined(separator: ", "))")
        }
        if let revocationPercentage, !PurchaseRevocation.percentages.contains(revocationPercentage) {
            throw ValidationError("--revocation-percentage must be 0 to 100000 (milliunits)")
        }
        var builder = DevelopmentTransactionBuilder(bundleId: configuration.appBundleId, productId: product, type: appStoreType)
        if let transactionId { builder.transactionId = transactionId }
        builder.originalTransactionId = originalTransactionId
        if let purchaseDate { builder.purchaseDate = try Self.milliseconds(purchaseDate) }
        if let expires { builder.expiresDate = try Self.expiry(expires, from: builder.purchaseDate) }
        if let revoked {
            builder.revocationDate = try Self.milliseconds(revoked)
        } else if revoke || revocationType != nil || revocationPercentage != nil {
            builder.revocationDate = Int64(Date().timeIntervalSince1970 * 1000) - 1000
        }
        builder.revocationType = revocationType
        builder.revocationPercentage = revocationPercentage
        builder.inAppOwnershipType = ownershipType
        builder.appAccountToken = appAccountToken
        builder.environment = environment
        builder.quantity = quantity
        return builder
    }

    static func milliseconds(_ text: String) throws -> Int64 {
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw ValidationError("\(text) is not an ISO 8601 date such as 2026-11-01T09:00:00Z")
        }
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    static func expiry(_ text: String, from start: Int64) throws -> Int64 {
        let units: [Character: Int64] = ["d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()) {
            let (end, overflow) = count.multipliedReportingOverflow(by: unit)
            let (sum, carry) = start.addingReportingOverflow(end)
            guard !overflow, !carry else { throw ValidationError("--expires \(text) is out of range") }
            return sum
        }
        return try milliseconds(text)
    }
}
