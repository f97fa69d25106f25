/// Checks a store's signed purchase, as the app presents it, and says what it proves.
public protocol PurchaseVerifier: Sendable {
    /// The store whose purchases this verifier checks.
    var store: PurchaseStore { get }

    /// The purchase `signed` proves, or why it proves nothing. A purchase of another store is refused.
    func verifyPurchase(_ signed: SignedPurchase) async throws(PurchaseRefusal) -> VerifiedPurchase
}

/// Why a signed purchase was refused: a stable code (the error table's name for it, such as
/// `signature-invalid`) and a sentence for people.
public struct PurchaseRefusal: CodedError, Sendable, Equatable {
    /// The stable code.
    public var code: String
    /// A sentence for people.
    public var message: String

    /// A refusal.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

}

extension PurchaseRefusal {
    /// A purchase of `store` given to the verifier of another: a fault of the caller's dispatch, answered as a
    /// request the server cannot read.
    public static func otherStore(_ store: PurchaseStore, verifier: PurchaseStore) -> PurchaseRefusal {
        PurchaseRefusal(code: "bad-request", message: "a \(store.rawValue) purchase cannot be checked by the \(verifier.rawValue) verifier")
    }

    /// A purchase of a store this server is not configured to accept.
    public static func storeNotAccepted(_ store: PurchaseStore) -> PurchaseRefusal {
        PurchaseRefusal(code: "store-not-configured", message: "this server does not accept \(store.rawValue) purchases")
    }
}
