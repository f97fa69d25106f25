import ArgumentParser
import DepotServer
import DepotSettings
import DepotTrust
import Foundation

/// `depot dev sign-notification --type REFUND --transaction JWS`: prints a signed App Store Server
/// Notification V2 payload, for testing notification handling locally. Without `--transaction`, `--product` and the
/// transaction options of `sign-transaction` (quantity, ownership, revocation type and percentage) sign the
/// transaction it carries: revoked for a REFUND or REVOKE, not for a REFUND_REVERSED.
struct DevSignNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-notification",
        abstract: "Print an App Store Server Notification V2 signedPayload signed by the development root."
    )

    @OptionGroup var common: CommonOptions

    @Option(help: "Notification type: REFUND, REVOKE, REFUND_REVERSED, REFUND_DECLINED, DID_RENEW, EXPIRED, ...")
    var type: String

    @Option(help: "Notification subtype.")
    var subtype: String?

    @Option(help: "The signed transaction (JWS) the notification carries.")
    var transaction: String?

    @Option(
        name: .customLong("transaction-type"),
        help: "With --product: the transaction's App Store type, Consumable, Non-Consumable, ... (default: from products.json).")
    var transactionType: String?

    @OptionGroup var signed: DevTransactionOptions

    func validate() throws {
        if transaction != nil, signed.product != nil {
            throw ValidationError("give --transaction (a signed transaction) or --product (to sign one), not both")
        }
    }

    func run() async throws {
        let configuration = try common.load()
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(configuration))
        var builder = DevelopmentNotificationBuilder(notificationType: type, subtype: subtype, bundleId: configuration.appBundleId)
        builder.environment = signed.environment
        builder.signedTransactionInfo = transaction
        if let product = signed.product {
            let transaction = try signed.builder(
                product: product, type: transactionType, configuration: configuration, revoke: type == "REFUND" || type == "REVOKE")
            var payload = transaction
            if type == "REFUND_REVERSED" {
                // Apple's reversal carries the transaction without its revocation fields.
                payload.revocationDate = nil
                payload.revocationType = nil
                payload.revocationPercentage = nil
            }
            builder.signedTransactionInfo = try authority.sign(payload: payload.payload())
        }
        print(try authority.sign(payload: builder.payload()))
    }
}
