import SwiftASN1

/// Apple's marker extensions on App Store signing certificates.
enum AppStoreExtensionID {
    /// On the leaf: Mac App Store / App Store receipt signing (1.2.840.113635.100.6.11.1).
    static let leaf: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// On the intermediate: Apple Worldwide Developer Relations CA (1.2.840.113635.100.6.2.1).
    static let intermediate: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
}
