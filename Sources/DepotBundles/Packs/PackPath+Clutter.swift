extension PackPath {
    /// Whether a directory entry is clutter a Mac leaves behind when it copies or zips a folder: Finder's
    /// `.DS_Store`, AppleDouble files (`._name`) and the `__MACOSX` folder of an archive.
    ///
    /// Such entries are ignored wherever they appear in a pack (at its root and at any depth under
    /// `Contents/`, whatever their type): never shipped to customers, never the reason a pack is refused.
    /// Compared as bytes, so only these exact spellings match.
    package static func isClutter(_ name: [UInt8]) -> Bool {
        name.elementsEqual(".DS_Store".utf8) || name.elementsEqual("__MACOSX".utf8) || name.starts(with: "._".utf8)
    }
}
