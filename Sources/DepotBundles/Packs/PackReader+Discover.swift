#if canImport(Glibc)
import DepotSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PackReader {
    /// The deepest nesting of packs under a content root.
    static let maxDiscoveryDepth = 16

    /// Finds the packs under `root`: every directory holding an entry named `pack.json`, searched
    /// recursively without descending into a pack. Returns their paths (`root/...`), sorted by UTF-8 bytes.
    ///
    /// Symbolic links are not followed and hidden directories (`.git`) and `__MACOSX` are skipped; a pack's own contents
    /// are checked later by `read(directory:limits:)`.
    package static func discover(root: String) throws(PackError) -> [String] {
        let base = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        let fd = try openDirectory(base, shown: "the content root")
        defer { POSIX.closeFile(fd) }
        var found: [String] = []
        try discover(fd, path: base, shown: "", depth: 0, into: &found)
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func discover(
        _ directory: Int32, path: String, shown: String, depth: Int, into found: inout [String]
    ) throws(PackError) {
        let names = try list(directory, shown: shown.isEmpty ? "the content root" : shown)
        if names.contains(Array("pack.json".utf8)) {
            found.append(path)
            return
        }
        guard depth < maxDiscoveryDepth else { return }
        for raw in names where raw.first != UInt8(ascii: ".") && !PackPath.isClutter(raw) {
            let status = try lstat(directory, raw, shown: shown + String(decoding: raw, as: UTF8.self))
            guard status.kind == .directory else { continue }
            guard let name = String(validating: raw, as: UTF8.self) else {
                throw PackError(
                    .badName,
                    "\(shown)\(String(decoding: raw, as: UTF8.self)) has a name that is not valid UTF-8"
                )
            }
            let child = try openDirectory(in: directory, raw, shown: shown + name)
            defer { POSIX.closeFile(child) }
            try discover(child, path: path + "/" + name, shown: shown + name + "/", depth: depth + 1, into: &found)
        }
    }
}
