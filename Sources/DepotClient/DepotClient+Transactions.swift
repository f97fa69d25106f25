import Foundation

extension DepotClient {
    /// `POST /v1/transactions`: presents a signed transaction (StoreKit's `VerificationResult.jwsRepresentation`)
    /// and returns the downloads it entitles. `installed` lists what the app already has, so that the server
    /// can offer deltas; `appAccountToken` says which of the app's accounts redeems.
    ///
    /// Redeeming the same transaction again is safe: the server answers with the same downloads and fresh grants.
    public func redeem(
        signedTransaction: String, installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> Redemption {
        try await redeem(.appStore(signedTransaction: signedTransaction), installed: installed, appAccountToken: appAccountToken)
    }

    /// `POST /v1/transactions` for a purchase of either store (for Google Play, the purchase data exactly as Play
    /// Billing gave it, and its signature); see `redeem(signedTransaction:installed:appAccountToken:)`.
    public func redeem(
        _ purchase: PresentedPurchase, installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> Redemption {
        let body = purchase.redeemRequest(installed: installed, appAccountToken: appAccountToken?.uuidString.lowercased())
        return try await post("/v1/transactions", body, as: Redemption.self)
    }

    /// `POST /v1/restore`: presents every signed transaction the app holds (StoreKit's
    /// `Transaction.currentEntitlements`) and returns the downloads they still entitle. `installed` is sent
    /// along for servers that offer deltas on restore.
    public func restore(
        signedTransactions: [String], installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> Restoration {
        let body = RestoreRequest(
            signedTransactions: signedTransactions, installed: installed,
            appAccountToken: appAccountToken?.uuidString.lowercased())
        return try await post("/v1/restore", body, as: Restoration.self)
    }

    /// `POST /v1/restore` for a StoreKit 1 app: presents its app receipt and returns the downloads its
    /// non-consumables and subscriptions still entitle. `deviceId` is the device's `identifierForVendor`, for
    /// servers that check the receipt was issued to it.
    public func restore(
        appReceipt: Data, deviceId: UUID? = nil, installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> Restoration {
        let body = RestoreRequest(
            appReceipt: appReceipt.base64EncodedString(), deviceId: deviceId?.uuidString.lowercased(), installed: installed,
            appAccountToken: appAccountToken?.uuidString.lowercased())
        return try await post("/v1/restore", body, as: Restoration.self)
    }

    /// `POST /v1/transactions/{id}/finish`: confirms that `delivered` bundles arrived and were unpacked.
    /// Call it only once they are in place; when it returns with `finishStoreKitTransaction`, call
    /// StoreKit's `finish()`.
    public func finish(
        _ transaction: RedeemedTransaction, delivered: [Download]
    ) async throws(DepotClientError)
        -> FinishConfirmation
    {
        guard let token = transaction.finishToken else {
            throw DepotClientError(
                .invalidArgument, "transaction \(transaction.id) has no finish token: use the transaction from a redeem or restore answer")
        }
        guard let id = transaction.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) else {
            throw DepotClientError(.invalidArgument, "the transaction id cannot be put in a URL")
        }
        let body = FinishRequest(
            finishToken: token, delivered: delivered.map { .init(contentId: $0.contentId, digest: $0.digest) })
        return try await post("/v1/transactions/\(id)/finish", body, as: FinishConfirmation.self)
    }
}
