import DepotSettings
import ArgumentParser
import DepotCore
import DepotServer
import DepotTrust
import Foundation

/// `depot dev sign-transaction --product ID [options]`: prints a signed transaction (JWS) on its last line.
struct DevSignTransaction: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-transaction",
        abstract: "Print an App Store signed transaction (JWS) signed by the development root, for local testing."
    )

    @OptionGroup var common: CommonOptions

    @Option(help: "The product identifier.")
    var product: String

    @Option(
        help:
            "Transaction type: Consumable, Non-Consumable, Auto-Renewable Subscription, Non-Renewing Subscription (default: from products.json)."
    )
    var type: String?

    @Option(name: .customLong("transaction-id"), help: "Transaction id (default: random digits).")
    var transactionId: String?

    @Option(name: .customLong("original-transaction-id"), help: "Original transaction id (default: the transaction id).")
    var originalTransactionId: String?

    @Option(name: .customLong("purchase-date"), help: "Purchase date, ISO 8601 (default: now).")
    var purchaseDate: String?

    @Option(help: "Expiry, ISO 8601, or a duration from the purchase such as 30d or 12h (subscriptions).")
    var expires: String?

    @Option(help: "Revocation date, ISO 8601 (a refunded purchase).")
    var revoked: String?

    @Option(name: .customLong("app-account-token"), help: "The app account token (a UUID).")
    var appAccountToken: String?

    @Option(help: "Environment: Production, Sandbox, Xcode, LocalTesting.")
    var environment: String = "Sandbox"

    @Option(help: "Quantity (consumables).")
    var quantity: Int = 1

    func run() async throws {
        let configuration = try common.load()
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(configuration))
        let configuredType = configuration.products.first { $0.id == product }?.type
        guard let appStoreType = type ?? configuredType.flatMap({ DevelopmentTransactionBuilder.ProductType.forDepotType($0.rawValue) })
        else {
            throw ValidationError("product \(product) is not in products.json: give --type")
        }
        var builder = DevelopmentTransactionBuilder(bundleId: configuration.appBundleId, productId: product, type: appStoreType)
        if let transactionId { builder.transactionId = transactionId }
        builder.originalTransactionId = originalTransactionId
        if let purchaseDate { builder.purchaseDate = try Self.milliseconds(purchaseDate) }
        if let expires { builder.expiresDate = try Self.expiry(expires, from: builder.purchaseDate) }
        if let revoked { builder.revocationDate = try Self.milliseconds(revoked) }
        builder.appAccountToken = appAccountToken
        builder.environment = environment
        builder.quantity = quantity
        print(try authority.sign(payload: builder.payload()))
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
            return start + count * unit
        }
        return try milliseconds(text)
    }
}
