/// A validated content pack: its manifest and the regular files under its `Contents/` directory.
///
/// Made by `PackReader.read(directory:limits:)`, which refuses anything unsafe; the bundle writer trusts
/// the paths it holds but checks again, when it opens each file, that it is still what was read.
package struct Pack: Sendable {
    /// The pack's directory (the one holding `pack.json` and `Contents/`).
    package var directory: String
    /// The parsed `pack.json`.
    package var manifest: PackManifest
    /// Every file under `Contents/`, sorted by the UTF-8 bytes of `relativePath`.
    package var files: [PackFile]
    /// The sum of the files' sizes.
    package var unpackedSize: Int64
    /// Mac clutter that was skipped (`.DS_Store`, `._*`, `__MACOSX`), as paths from the pack's directory
    /// (`.DS_Store`, `Contents/images/._a.png`), sorted by their UTF-8 bytes; not part of the bundle.
    package var ignored: [String]

    /// A pack of `files` (sorted here) under `directory/Contents`; `ignored` lists skipped clutter.
    package init(directory: String, manifest: PackManifest, files: [PackFile], ignored: [String] = []) {
        self.ignored = ignored.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.directory = directory
        self.manifest = manifest
        self.files = files.sorted { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
        self.unpackedSize = files.reduce(0) { $0 + $1.size }
    }

    /// The pack's `Contents/` directory.
    package var contentsDirectory: String { directory + "/Contents" }
}
