/// How far App Store dates may run ahead of the clock they are compared with.
///
/// Apple's servers and this one keep their own clocks, and the App Store can stamp a renewal's `purchaseDate`
/// a few seconds after the `signedDate` of the payload carrying it (seen in genuine Sandbox renewals); five
/// minutes absorbs both without letting a payload claim a signing time in the future.
package enum AppStoreClockSkew {
    /// The allowed skew, in milliseconds.
    package static let milliseconds: Int64 = 5 * 60 * 1_000
}
