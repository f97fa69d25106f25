import DepotCore

extension BundleDigest {
    /// The digest written as 64 copies of one hex digit (`"a"` gives `aaaa…a`): a stand-in for a bundle in tests
    /// that never read its bytes.
    public static func repeating(_ digit: Character) -> BundleDigest {
        parsed(String(repeating: digit, count: BundleDigest.hexCount))
    }

    /// The digest `hex` spells; the test stops at once when it is not 64 lowercase hex digits.
    public static func parsed(_ hex: String) -> BundleDigest {
        guard let digest = BundleDigest(hex: hex) else { preconditionFailure("not a bundle digest: \(hex)") }
        return digest
    }
}

extension BundleDigest {
    /// A digest standing for `label` (up to 32 UTF-8 bytes, zero-padded): distinct labels give distinct digests,
    /// for tests whose bundles are names only.
    public static func labelled(_ label: String) -> BundleDigest {
        let bytes = Array(label.utf8)
        precondition(bytes.count <= byteCount, "a digest label holds at most 32 bytes: \(label)")
        guard let digest = BundleDigest(bytes: bytes + Array(repeating: 0, count: byteCount - bytes.count)) else {
            preconditionFailure("32 bytes make a digest")
        }
        return digest
    }
}
