import Crypto

extension Pack {
    /// A key for the build cache: SHA-256 (lowercase hex) over what the bundle's bytes depend on, as far
    /// as can be told without reading the files: the bundle format version, the libdeflate version, the level,
    /// the manifest fields the bundle carries, and each file's path, size and modification time (ns).
    ///
    /// Equal fingerprints mean the same bundle can be reused; different ones only mean "build again",
    /// which yields the same digest when the bytes did not really change.
    package func fingerprint(compressionLevel: Int) -> String {
        var hasher = SHA256()
        func field(_ text: String) {
            // Length-prefixed, so no two different field lists hash the same input.
            var length = UInt64(text.utf8.count).littleEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(data: Array(text.utf8))
        }
        field("depot-bundle-fingerprint")
        field(String(BundleWriter.formatVersion))
        field(BlockDeflater.versionString)
        field(String(BundleWriter(compressionLevel: compressionLevel).compressionLevel))
        field(manifest.productId)
        field(manifest.contentId)
        field(manifest.version)
        field(String(manifest.publishedAt))
        field(String(files.count))
        for file in files {
            field(file.relativePath)
            field(String(file.size))
            field(file.modificationTime.map { String($0) } ?? "-")
        }
        return hasher.finalize().lowercaseHex
    }

    /// A key for the build cache of the delta bundle from `base` to this pack: SHA-256 (lowercase hex)
    /// over both packs' fingerprints at `compressionLevel`, so a change to either is a new delta.
    package func deltaFingerprint(from base: Pack, compressionLevel: Int) -> String {
        var hasher = SHA256()
        for field in [
            "depot-delta-fingerprint", base.fingerprint(compressionLevel: compressionLevel),
            fingerprint(compressionLevel: compressionLevel),
        ] {
            var length = UInt64(field.utf8.count).littleEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(data: Array(field.utf8))
        }
        return hasher.finalize().lowercaseHex
    }
}
