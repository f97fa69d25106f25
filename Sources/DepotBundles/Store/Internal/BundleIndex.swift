import Foundation

/// The build cache on disk (`<root>/index.json`): pack fingerprint → bundle. A cache only: a missing or
/// unreadable index means bundles are built again, never that a wrong one is served (a hit is used only
/// when the bundle file is in place with the recorded size).
struct BundleIndex: Codable, Equatable {
    static let currentVersion = 1

    var version: Int = BundleIndex.currentVersion
    var entries: [String: BundleRecord] = [:]

    /// Loads the index at `path`; an absent, unreadable or foreign one gives an empty index.
    static func load(from path: String) -> BundleIndex {
        guard let data = FileManager.default.contents(atPath: path),
            let index = try? JSONDecoder().decode(BundleIndex.self, from: data),
            index.version == currentVersion
        else { return BundleIndex() }
        return index
    }

    /// The index as stable JSON (sorted keys).
    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a dictionary of strings and integers cannot fail.
        return Array((try? encoder.encode(self)) ?? Data("{}".utf8))
    }
}
