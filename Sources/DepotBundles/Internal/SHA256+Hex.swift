import Crypto
import DepotCore

extension SHA256.Digest {
    /// Lowercase hexadecimal.
    var lowercaseHex: String { Hex.lowercase(self) }

    /// The digest as a bundle's name (a SHA-256 output is always 32 bytes).
    var bundleDigest: BundleDigest {
        guard let digest = BundleDigest(bytes: Array(self)) else { preconditionFailure("a SHA-256 output is 32 bytes") }
        return digest
    }
}
