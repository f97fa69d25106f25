import Foundation

/// The content-addressed files of a data directory, by digest: bundles at `<bundles>/<xx>/<digest>.zip`,
/// pack copies at `<packs>/<digest>/`. Names that are not a lowercase hex SHA-256 (temporary workspaces,
/// partial copies, the store's index) are never listed, so never collected.
enum StoredFiles {
    /// A file or folder found: where, when it was last modified (seconds since 1970), and its size.
    struct Found: Equatable, Sendable {
        var path: String
        var modified: Int64
        var size: Int64
    }

    /// Bundle files by digest.
    static func bundles(under root: String) -> [String: Found] {
        var found: [String: Found] = [:]
        let files = FileManager.default
        for shard in (try? files.contentsOfDirectory(atPath: root)) ?? [] where shard.count == 2 && isHex(shard) {
            let folder = (root as NSString).appendingPathComponent(shard)
            for name in (try? files.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".zip") {
                let digest = String(name.dropLast(4))
                guard isDigest(digest), digest.hasPrefix(shard) else { continue }
                let path = (folder as NSString).appendingPathComponent(name)
                if let attributes = try? files.attributesOfItem(atPath: path) { found[digest] = Found(path: path, attributes) }
            }
        }
        return found
    }

    /// Pack copies by digest.
    static func packs(under root: String) -> [String: Found] {
        var found: [String: Found] = [:]
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: root)) ?? [] where isDigest(name) {
            let path = (root as NSString).appendingPathComponent(name)
            if let attributes = try? files.attributesOfItem(atPath: path) { found[name] = Found(path: path, attributes) }
        }
        return found
    }

    /// The bytes of every regular file under `path`.
    static func treeSize(_ path: String) -> Int64 {
        let files = FileManager.default
        var total: Int64 = 0
        for relative in files.subpaths(atPath: path) ?? [] {
            let attributes = try? files.attributesOfItem(atPath: (path as NSString).appendingPathComponent(relative))
            if attributes?[.type] as? FileAttributeType == .typeRegular {
                total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return total
    }

    private static func isDigest(_ name: String) -> Bool { name.utf8.count == 64 && isHex(name) }

    private static func isHex(_ name: String) -> Bool {
        name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension StoredFiles.Found {
    fileprivate init(path: String, _ attributes: [FileAttributeKey: Any]) {
        self.path = path
        modified = Int64((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
