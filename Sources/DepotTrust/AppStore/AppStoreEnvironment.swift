/// The `environment` strings the App Store writes into signed data.
///
/// Environments stay plain strings in decoded payloads, so a value Apple adds later is kept as it came and
/// refused by ``AppStoreVerifier`` unless configured as accepted.
package enum AppStoreEnvironment {
    /// Purchases made in the App Store.
    package static let production = "Production"
    /// Purchases made with sandbox accounts (TestFlight, development builds).
    package static let sandbox = "Sandbox"
    /// StoreKit testing in Xcode.
    package static let xcode = "Xcode"
    /// Local StoreKit testing.
    package static let localTesting = "LocalTesting"

    /// The environments documented today.
    package static let known: Set<String> = [production, sandbox, xcode, localTesting]
}
