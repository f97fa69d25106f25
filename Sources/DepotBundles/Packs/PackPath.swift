/// The rules for names and relative paths inside a pack, kept pure so they can be tested by table and
/// reused for archives (a zip or tar upload names its entries with whole paths).
package enum PackPath {
    /// The longest single name, in UTF-8 bytes (what common file systems allow).
    static let maxNameLength = 255
    /// The longest path under `Contents/`, in UTF-8 bytes.
    static let maxPathLength = 1024

    /// Checks one directory entry's raw name; `parent` is how its directory is shown (`Contents/images`).
    /// Returns the name as a string.
    package static func validateName(_ bytes: [UInt8], parent: String) throws(PackError) -> String {
        guard let name = String(validating: bytes, as: UTF8.self) else {
            let shown = String(decoding: bytes, as: UTF8.self)
            throw PackError(.badName, "\(parent)/\(shown) has a name that is not valid UTF-8")
        }
        try validateComponent(name, parent: parent)
        return name
    }

    /// Checks a whole `/`-separated path relative to `Contents/` (as an archive would name it).
    package static func validate(relativePath path: String) throws(PackError) {
        let shown = "Contents/" + path
        guard !path.isEmpty else { throw PackError(.unsafePath, "an entry has an empty path") }
        if path.hasPrefix("/") || path.utf8.dropFirst().first == UInt8(ascii: ":") {
            throw PackError(.unsafePath, "\(path) is an absolute path; entries must be relative to Contents/")
        }
        guard path.utf8.count <= maxPathLength else {
            throw PackError(.badName, "\(shown) is longer than \(maxPathLength) bytes")
        }
        var parent = "Contents"
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            try validateComponent(String(component), parent: parent)
            parent += "/" + component
        }
    }

    private static func validateComponent(_ name: String, parent: String) throws(PackError) {
        let shown = parent + "/" + name
        if name.isEmpty {
            throw PackError(.unsafePath, "\(parent)/ has an empty path component")
        }
        if name == "." || name == ".." {
            throw PackError(.unsafePath, "\(shown) is a \"\(name)\" path component")
        }
        for byte in name.utf8 {
            switch byte {
            case 0:
                throw PackError(.unsafePath, "\(shown.replacingNUL) contains a NUL byte")
            case UInt8(ascii: "/"):
                throw PackError(.unsafePath, "\(shown) contains a slash in a name")
            case UInt8(ascii: "\\"):
                throw PackError(.unsafePath, "\(shown) contains a backslash")
            case 0x01...0x1F, 0x7F:
                throw PackError(.badName, "\(shown.debugDescription) contains a control character")
            default:
                continue
            }
        }
        guard name.utf8.count <= maxNameLength else {
            throw PackError(.badName, "\(shown) has a name longer than \(maxNameLength) bytes")
        }
    }

    /// The key under which two names collide: full case folding (`ß` and `SS`) over Swift's canonical
    /// equivalence (`é` precomposed or not), which is how case-insensitive file systems compare.
    static func collisionKey(_ name: String) -> String {
        name.uppercased().lowercased()
    }
}

extension String {
    fileprivate var replacingNUL: String {
        String(decoding: utf8.map { $0 == 0 ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
