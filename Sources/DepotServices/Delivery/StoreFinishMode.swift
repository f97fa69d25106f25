/// Who finishes a transaction at its store once Depot recorded its delivery, as the finish answer says.
package enum StoreFinishMode: String, Sendable, Equatable {
    /// Depot finishes it at the store through its outbox; the app's own `finish()` is optional and harmless.
    case server
    /// Depot does not call the store: the app finishes the transaction itself.
    case app
    /// The transaction's environment has no store server (Xcode, StoreKit Testing): the app finishes it.
    case notApplicable = "not-applicable"
}
