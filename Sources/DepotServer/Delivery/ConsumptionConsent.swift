import DepotServices
import DepotAPI
import DepotAppStore
import DepotCore
import DepotGooglePlay
import DepotLedger
import DepotTrust

extension DeliveryService {
    /// Records or withdraws the customer's consent to send consumption information for a transaction. The
    /// finish token proves the caller redeemed; a wrong one is answered like an unknown transaction.
    func consent(transactionId: String, _ request: ConsentRequest) async throws(DepotError) -> ConsentBody {
        guard let token = request.finishToken else {
            throw DepotError(
                .finishTokenRequired, "a consent needs \"finishToken\", from the answer to the redeem of this transaction")
        }
        let unknown = DepotError(.unknownTransaction, "no such transaction was redeemed here")
        guard grants.isValidFinishToken(token, transactionId: transactionId) else { throw unknown }
        let recorded = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.setConsumptionConsent(transactionId: transactionId, consented: request.customerConsented, now: clock())
        }
        guard recorded,
            let stored = try await ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: transactionId) })
        else { throw unknown }
        return ConsentBody(transaction: Self.body(stored), customerConsented: request.customerConsented)
    }

    /// The Send Consumption Information body for a transaction from Depot's delivery evidence now, or nil when
    /// the customer's consent is not (or no longer) recorded (see `DeliveryContext.consumptionInformation`).
    func consumptionInformation(transactionId: String) async throws(DepotError) -> ConsumptionInformation? {
        do {
            return try await context.consumptionInformation(
                transactionId: transactionId, sampleContentProvided: appStoreServerAPI?.sampleContentProvided ?? false)
        } catch {
            switch error {
            case .delivery(let refusal): throw DepotError(refusal)
            case .outsideApplesRules(let status):
                throw DepotError(.internal, "the consumption information for \(status) breaks Apple's rules")
            }
        }
    }

    /// The `orders.reviewrefund` answer to a Google Play transaction's pending refund review from Depot's delivery
    /// evidence now, or nil when no review is recorded (see `DeliveryContext.refundReview`).
    func refundReview(transactionId: String, sampleContentProvided: Bool) async throws(DepotError) -> GooglePlayRefundReview? {
        do {
            return try await context.refundReview(transactionId: transactionId, sampleContentProvided: sampleContentProvided)
        } catch {
            throw DepotError(error)
        }
    }
}
