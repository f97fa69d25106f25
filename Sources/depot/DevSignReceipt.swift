import ArgumentParser
import DepotCore
import DepotServer
import DepotSettings
import DepotTrust
import Foundation

/// `depot dev sign-receipt --product ID [options]`: prints a StoreKit 1 app receipt holding one purchase, signed by
/// the development receipt root, in base64 on its last line.
struct DevSignReceipt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-receipt",
        abstract: "Print an app receipt (base64) signed by the development receipt root, for local testing of StoreKit 1 apps."
    )

    @OptionGroup var common: CommonOptions

    @Option(help: "The product identifier.")
    var product: String

    @Option(
        help: "Product type: consumable, nonConsumable, autoRenewable, nonRenewing (default: from products.json).")
    var type: String?

    @Option(name: .customLong("transaction-id"), help: "Transaction id (default: random digits).")
    var transactionId: String?

    @Option(name: .customLong("original-transaction-id"), help: "Original transaction id (default: the transaction id).")
    var originalTransactionId: String?

    @Option(name: .customLong("purchase-date"), help: "Purchase date, ISO 8601 (default: now).")
    var purchaseDate: String?

    @Option(help: "Expiry, ISO 8601, or a duration from the purchase such as 30d or 12h (subscriptions).")
    var expires: String?

    @Option(help: "Cancellation date, ISO 8601 (a refunded purchase).")
    var cancelled: String?

    @Option(help: "Receipt type: Production, ProductionSandbox, Xcode.")
    var environment: String = "ProductionSandbox"

    @Option(help: "Quantity (consumables).")
    var quantity: Int = 1

    @Option(
        name: .customLong("device-id"),
        help: "The device's identifierForVendor (a UUID): the receipt's hash is made to match it (default: matches no device).")
    var deviceId: String?

    func validate() throws {
        if let deviceId, deviceId.utf8.count != 36 || UUID(uuidString: deviceId) == nil {
            throw ValidationError("--device-id must be a UUID such as identifierForVendor")
        }
    }

    func run() async throws {
        let configuration = try common.load()
        let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: TrustSetup.developmentReceiptDirectory(configuration))
        guard let depotType = type ?? configuration.products.first(where: { $0.id == product })?.type.rawValue else {
            throw ValidationError("product \(product) is not in products.json: give --type")
        }
        var builder = DevelopmentReceiptBuilder(bundleId: configuration.appBundleId, productId: product, type: depotType)
        if let transactionId { builder.transactionId = transactionId }
        builder.originalTransactionId = originalTransactionId
        if let purchaseDate { builder.purchaseDate = try DevTransactionOptions.milliseconds(purchaseDate) / 1000 * 1000 }
        if let expires { builder.expiresDate = try DevTransactionOptions.expiry(expires, from: builder.purchaseDate) }
        if let cancelled { builder.cancellationDate = try DevTransactionOptions.milliseconds(cancelled) }
        builder.receiptType = environment
        guard (1...1_000_000).contains(quantity) else { throw ValidationError("--quantity must be 1 to 1000000") }
        builder.quantity = quantity
        builder.deviceId = deviceId.flatMap(UUID.init(uuidString:))
        print(Data(try authority.sign(payload: try builder.payload())).base64EncodedString())
    }
}
