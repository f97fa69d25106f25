/// `POST /v1/transactions/{id}/consent` body: the customer's choice, in the app, to let Depot share
/// consumption data with the App Store when they ask for a refund.
public struct ConsentRequest: Codable, Sendable {
    /// The redeem answer's `transaction.finishToken`: proof that the caller is the one that redeemed.
    public var finishToken: String?
    /// True to consent, false to withdraw.
    public var customerConsented: Bool

    /// A consent or its withdrawal.
    public init(finishToken: String?, customerConsented: Bool) {
        self.finishToken = finishToken
        self.customerConsented = customerConsented
    }
}

/// The answer to a consent.
public struct ConsentBody: Codable, Sendable {
    /// The transaction.
    public var transaction: RedeemedTransaction
    /// The choice now recorded.
    public var customerConsented: Bool

    /// The answer for `transaction`.
    public init(transaction: RedeemedTransaction, customerConsented: Bool) {
        self.transaction = transaction
        self.customerConsented = customerConsented
    }
}
