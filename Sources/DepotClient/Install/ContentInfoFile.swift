import Foundation

/// A bundle's `ContentInfo.plist`: which content and version it holds and, for a delta, the version it
/// applies over and the paths to delete from it.
struct ContentInfoFile {
    /// Every key as read.
    var values: [String: Any]

    /// Reads the property list at `path`.
    init(path: String) throws(DepotClientError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DepotClientError(.bundleMismatch, "the bundle has no ContentInfo.plist")
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
            let values = plist as? [String: Any]
        else {
            throw DepotClientError(.bundleMismatch, "the bundle's ContentInfo.plist is not a property list dictionary")
        }
        self.values = values
    }

    /// `ContentIdentifier`.
    var contentIdentifier: String? { values["ContentIdentifier"] as? String }
    /// `ContentVersion`.
    var contentVersion: String? { values["ContentVersion"] as? String }
    /// `BaseContentVersion`, in a delta only.
    var baseContentVersion: String? { values["BaseContentVersion"] as? String }
    /// `RemovedPaths`, in a delta only.
    var removedPaths: [String] { values["RemovedPaths"] as? [String] ?? [] }
    /// `FileCount`: files under `Contents/` once installed.
    var fileCount: Int? { (values["FileCount"] as? NSNumber)?.intValue ?? values["FileCount"] as? Int }
    /// `UnpackedSize`: their bytes.
    var unpackedSize: Int64? { (values["UnpackedSize"] as? NSNumber)?.int64Value ?? (values["UnpackedSize"] as? Int).map(Int64.init) }

    /// Writes the list without the delta's own keys: what a whole bundle of the same version holds.
    func writeInstalled(to path: String) throws(DepotClientError) {
        var installed = values
        installed["BaseContentVersion"] = nil
        installed["RemovedPaths"] = nil
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: installed, format: .xml, options: 0)
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw DepotClientError(.io, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
