import DepotBundles

extension BundleSettings {
    /// The limits packs are read with.
    package var packLimits: PackLimits {
        PackLimits(maxFileCount: maxFileCount, maxFileSize: maxFileSize, maxTotalSize: maxTotalSize)
    }
}
