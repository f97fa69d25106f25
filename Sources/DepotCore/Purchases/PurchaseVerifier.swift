/// Checks a store's signed purchase, as the app presents it, and says what it proves.
public protocol PurchaseVerifier: Sendable {
    /// The store whose purchases this verifier checks.
    var store: PurchaseStore { get }

    /// The purchase `signed` proves, or why it proves nothing.
    func verifyPurchase(_ signed: String) async throws(PurchaseRefusal) -> VerifiedPurchase
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
