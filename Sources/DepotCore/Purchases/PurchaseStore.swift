/// The store a purchase was made in. Each store has its own verifier; past the verifier, a purchase is
/// delivered, finished and restored the same way whichever store sold it.
public enum PurchaseStore: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Apple's App Store: StoreKit's signed transactions (JWS).
    case appStore = "app-store"
    /// Google Play: Play Billing's signed purchase data.
    case googlePlay = "google-play"
}
