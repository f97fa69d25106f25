/// When to try deflating an entry. Fixed in production (the bytes depend on it); tests vary it.
///
/// A probe deflates the first `probeSize` bytes of an entry on its own; an entry whose probe output is
/// larger than `storeRatio` of the probe's input is stored without deflating the rest (already-compressed
/// media costs no deflate time). An entry no larger than the probe is decided by the probe alone.
struct CompressionPolicy: Sendable {
    /// How much of an entry's start the probe deflates.
    var probeSize = 64 << 10
    /// An entry whose probe output is larger than this fraction of its input is stored.
    var storeRatio = 0.97

    static let standard = CompressionPolicy()
}
