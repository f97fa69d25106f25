extension BundleWriter {
    /// Writes the delta bundle from `base` to `target` at `path` (which must not exist): laid out like a
    /// full bundle, holding only `target`'s added and changed files, with `BaseContentVersion` and
    /// `RemovedPaths` in its `ContentInfo.plist` (see `DeltaPlan` for how a client applies it).
    /// Deterministic like a full bundle. Reads both packs' common files to compare them.
    ///
    /// Throws `PackError` (`delta-mismatch` for packs of different content, `pack-changed`,
    /// `unreadable`) and `BundleStoreError`.
    package func writeDelta(
        from base: Pack, to target: Pack, at path: String, sync: Bool = false
    ) throws
        -> BundleRecord
    {
        try write(DeltaPlan.compare(from: base, to: target), to: path, sync: sync)
    }

    /// Writes the delta bundle `plan` describes at `path`, which must not exist.
    package func write(_ plan: DeltaPlan, to path: String, sync: Bool = false) throws -> BundleRecord {
        try write(info: ContentInfo(delta: plan), from: plan.target, files: plan.files, to: path, sync: sync)
    }
}
