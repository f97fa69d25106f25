import Crypto

/// Apple Root CA (`C=US, O=Apple Inc., OU=Apple Certification Authority, CN=Apple Root CA`, 2006 to 2035), the
/// root every App Store app receipt chains to, known by the SHA-256 of its DER, as Apple publishes it.
package enum AppleRootCA {
    /// The SHA-256 of the certificate's DER:
    /// `B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24`.
    package static let sha256: [UInt8] = [
        0xB0, 0xB1, 0x73, 0x0E, 0xCB, 0xC7, 0xFF, 0x45, 0x05, 0x14, 0x2C, 0x49, 0xF1, 0x29, 0x5E, 0x6E,
        0xDA, 0x6B, 0xCA, 0xED, 0x7E, 0x2C, 0x68, 0xC5, 0xBE, 0x91, 0xB5, 0xA1, 0x10, 0x01, 0xF0, 0x24,
    ]

    /// Whether `der` is Apple Root CA.
    package static func isAppleRootCA(der: [UInt8]) -> Bool {
        Array(SHA256.hash(data: der)) == sha256
    }
}
