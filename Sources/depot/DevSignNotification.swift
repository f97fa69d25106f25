import DepotSettings
import ArgumentParser
import DepotServer
import DepotTrust
import Foundation

/// `depot dev sign-notification --type REFUND --transaction JWS`: prints a signed App Store Server
/// Notification V2 payload, for testing notification handling locally.
struct DevSignNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-notification",
        abstract: "Print an App Store Server Notification V2 signedPayload signed by the development root."
    )

    @OptionGroup var common: CommonOptions

    @Option(help: "Notification type: REFUND, REVOKE, REFUND_REVERSED, DID_RENEW, EXPIRED, ...")
    var type: String

    @Option(help: "Notification subtype.")
    var subtype: String?

    @Option(help: "The signed transaction (JWS) the notification carries.")
    var transaction: String?

    @Option(help: "Environment.")
    var environment: String = "Sandbox"

    func run() async throws {
        let configuration = try common.load()
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(configuration))
        var builder = DevelopmentNotificationBuilder(notificationType: type, subtype: subtype, bundleId: configuration.appBundleId)
        builder.environment = environment
        builder.signedTransactionInfo = transaction
        print(try authority.sign(payload: builder.payload()))
    }
}
