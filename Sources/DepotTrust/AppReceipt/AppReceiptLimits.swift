/// The bounds an app receipt is read within: anything beyond them is refused as `receipt-malformed` before it
/// costs more work.
package enum AppReceiptLimits {
    /// The most bytes a receipt may have (DER or BER): Apple's receipts are a few kilobytes, about 400 bytes more
    /// per in-app purchase; 187 records take 79 KB.
    package static let maximumBytes = 2 << 20
    /// The most certificates the CMS certificate set may hold: Apple sends leaf, intermediate and root, Xcode one.
    /// More would only let a sender make the chain search try every ordering of them.
    static let maximumCertificates = 3
    /// The most in-app purchase records a receipt may hold.
    package static let maximumInAppPurchases = 10_000
    /// The most attributes at one level of the payload (Apple writes about 25 per receipt and per record).
    static let maximumAttributes = 200
    /// The longest string value read (a bundle id, a version, a product or transaction id), in bytes.
    static let maximumStringLength = 1_024
    /// The longest opaque value (attribute 4) and device hash (attribute 5) read, in bytes: Apple writes 16 and
    /// 20, Xcode 8 and 20.
    static let maximumDeviceFieldLength = 64
}
