import DepotSettings
import DepotAppStore
import DepotLedger
import DepotServices
import Logging

extension TransactionRefresh {
    /// A refresh for a configuration: its trust settings, its App Store Server API key and base URLs (calls
    /// retried as the client's default policy says), its prorated-refund policies. Fails when `appStoreServerAPI` is not configured.
    package static func make(_ configuration: DepotConfiguration, ledger: any Ledger, logger: Logger) throws -> TransactionRefresh {
        guard let settings = configuration.appStoreServerAPI else {
            throw ConfigurationError("appStoreServerAPI is not configured in depot.json: Depot cannot ask the App Store")
        }
        var client = try DepotApplication.appStoreClient(settings)
        client = client.retrying(AppStoreAPIRetryPolicy())
        var refresh = TransactionRefresh(
            ledger: ledger, verifier: try TrustSetup.verifier(configuration, logger: logger), client: client,
            clock: DepotApplication.systemClock)
        refresh.proratedRefunds = configuration.proratedRefunds
        return refresh
    }
}
