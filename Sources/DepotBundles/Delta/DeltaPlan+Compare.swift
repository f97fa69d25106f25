extension DeltaPlan {
    /// Plans the delta from `base` to `target` by reading the files both hold with the same size and
    /// comparing their bytes, 1 MiB at a time, stopping at the first difference. (Comparing the bytes
    /// themselves reads no more than hashing both would, and has no collision to argue about.)
    ///
    /// Throws `PackError` `delta-mismatch` for packs of different content, `pack-changed` when a file is
    /// no longer what its pack recorded, `unreadable` when one cannot be read.
    package static func compare(from base: Pack, to target: Pack) throws -> DeltaPlan {
        let comparer = try PackFileComparer(base: base, target: target)
        return try DeltaPlan(from: base, to: target) { try comparer.sameBytes($0, $1) }
    }
}
