import DepotAppStore
import DepotServices
import DepotSettings

extension DepotApplication {
    /// The longest a redeem or restore by app receipt waits for one Get Transaction Info call, when
    /// `appStoreServerAPI.timeoutSeconds` is longer: the app's request must not wait as long as the outbox may.
    static let receiptLookupTimeoutSeconds: Int64 = 5

    /// Apple as the authority over app receipts' purchases (Get Transaction Info), when both the App Store Server
    /// API and app receipts are configured; nil otherwise (the receipt alone decides).
    func receiptLookup() -> ReceiptTransactionLookup? {
        guard let settings = configuration.appStoreServerAPI, receiptVerifier != nil, appStoreClient != nil,
            let client = try? Self.appStoreClient(settings, timeoutSeconds: Self.receiptLookupTimeoutSeconds)
        else { return nil }
        return ReceiptTransactionLookup(
            client: client, verifier: verifier, environments: Set(settings.baseURLs.keys), logger: logger)
    }
}
