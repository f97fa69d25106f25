/// What a delta bundle from one version of a content pack to the next holds: the files of the new
/// version that are added or changed (different bytes), and the paths of the old version's files that
/// are gone.
///
/// A client holding the base version's `Contents/` applies a delta bundle in this order: delete every
/// path in `RemovedPaths` (its `ContentInfo.plist`), remove the directories this leaves empty (packs
/// have no empty directories: a bundle holds files only), then unpack the delta's `Contents/` over what
/// remains, replacing files. Deleting first lets a file become a directory of the same name, or the
/// reverse. The result is exactly the new version's `Contents/`.
///
/// A delta between identical packs is valid: it holds `ContentInfo.plist` alone and removes nothing.
/// The two packs must be versions of the same content (same product and content identifiers).
package struct DeltaPlan: Sendable {
    /// The version the delta brings the content to; its files are the source of the delta's entries.
    package let target: Pack
    /// The `ContentVersion` of the base the delta applies over (`BaseContentVersion`).
    package let baseVersion: String
    /// Files of `target` whose path the base does not have, sorted.
    package let added: [PackFile]
    /// Files of `target` whose path the base has with different bytes, sorted.
    package let changed: [PackFile]
    /// Paths (relative to `Contents/`) of the base's files that `target` does not have, sorted by UTF-8
    /// bytes (`RemovedPaths`).
    package let removedPaths: [String]
    /// How many files both versions hold with the same bytes (not in the delta).
    package let unchangedCount: Int

    /// The files the delta bundle holds: `added` and `changed`, sorted by the UTF-8 bytes of their paths.
    package var files: [PackFile] {
        (added + changed).sorted { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
    }

    /// Plans the delta from `base` to `target`, asking `sameContent` about each path both hold with the
    /// same size (files of different sizes differ without being read). Pure: `sameContent` does the I/O.
    ///
    /// Throws `PackError` `delta-mismatch` when the packs are not versions of the same content, and
    /// whatever `sameContent` throws.
    package init(
        from base: Pack, to target: Pack, sameContent: (_ base: PackFile, _ target: PackFile) throws -> Bool
    ) throws {
        guard base.manifest.productId == target.manifest.productId,
            base.manifest.contentId == target.manifest.contentId
        else {
            throw PackError(
                .deltaMismatch,
                "a delta needs two versions of the same content, not \(base.manifest.contentId) "
                    + "(\(base.manifest.productId)) and \(target.manifest.contentId) (\(target.manifest.productId))"
            )
        }
        var added: [PackFile] = []
        var changed: [PackFile] = []
        var removed: [String] = []
        var unchanged = 0
        // Both lists are sorted by the UTF-8 bytes of their paths: one merge walk pairs them up.
        var old = base.files[...]
        var new = target.files[...]
        while let oldFile = old.first, let newFile = new.first {
            // Paths are compared as bytes: String's == treats NFC and NFD spellings as equal, but a bundle
            // stores names byte for byte, so such a pair is one file removed and another added.
            if oldFile.relativePath.utf8.elementsEqual(newFile.relativePath.utf8) {
                if oldFile.size == newFile.size, try sameContent(oldFile, newFile) {
                    unchanged += 1
                } else {
                    changed.append(newFile)
                }
                old.removeFirst()
                new.removeFirst()
            } else if oldFile.relativePath.utf8.lexicographicallyPrecedes(newFile.relativePath.utf8) {
                removed.append(oldFile.relativePath)
                old.removeFirst()
            } else {
                added.append(newFile)
                new.removeFirst()
            }
        }
        removed.append(contentsOf: old.map(\.relativePath))
        added.append(contentsOf: new)

        self.target = target
        self.baseVersion = base.manifest.version
        self.added = added
        self.changed = changed
        self.removedPaths = removed
        self.unchangedCount = unchanged
    }
}
