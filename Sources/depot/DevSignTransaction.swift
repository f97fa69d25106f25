import ArgumentParser
import DepotServer
import DepotSettings
import DepotTrust

/// `depot dev sign-transaction --product ID [options]`: prints a signed transaction (JWS) on its last line.
struct DevSignTransaction: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-transaction",
        abstract: "Print an App Store signed transaction (JWS) signed by the development root, for local testing."
    )

    @OptionGroup var common: CommonOptions

    @Option(
        help:
            "Transaction type: Consumable, Non-Consumable, Auto-Renewable Subscription, Non-Renewing Subscription (default: from products.json)."
    )
    var type: String?

    @OptionGroup var transaction: DevTransactionOptions

    func validate() throws {
        guard transaction.product != nil else { throw ValidationError("give --product: the product identifier") }
    }

    func run() async throws {
        let configuration = try common.load()
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(configuration))
        let builder = try transaction.builder(product: transaction.product ?? "", type: type, configuration: configuration)
        print(try authority.sign(payload: builder.payload()))
    }
}
