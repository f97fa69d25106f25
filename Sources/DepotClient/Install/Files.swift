import Foundation

/// The few file operations the installer needs, with errors as `DepotClientError`.
enum Files {
    /// Creates `path` and its parents when missing.
    static func createDirectory(_ path: String) throws(DepotClientError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw DepotClientError(.io, "cannot create the folder \(path): \(error.localizedDescription)")
        }
    }

    /// Renames `source` to `target` (same file system: atomic).
    static func rename(_ source: String, to target: String) throws(DepotClientError) {
        do {
            try FileManager.default.moveItem(atPath: source, toPath: target)
        } catch {
            throw DepotClientError(.io, "cannot move \(source) to \(target): \(error.localizedDescription)")
        }
    }

    /// Removes `path` and everything under it, if it exists.
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Checks that `folder/Contents` holds the `FileCount` files of `UnpackedSize` bytes `info` promises.
    static func check(_ folder: String, against info: ContentInfoFile, content: String) throws(DepotClientError) {
        guard info.fileCount != nil || info.unpackedSize != nil else { return }
        var count = 0
        var bytes: Int64 = 0
        let root = folder + "/Contents"
        guard let enumerator = FileManager.default.enumerator(atPath: root) else {
            throw DepotClientError(.io, "cannot list \(root)")
        }
        for case let relative as String in enumerator {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + relative),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            count += 1
            bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
        if let expected = info.fileCount, expected != count {
            throw DepotClientError(.bundleMismatch, "\(content) would have \(count) files, but its ContentInfo.plist says \(expected)")
        }
        if let expected = info.unpackedSize, expected != bytes {
            throw DepotClientError(.bundleMismatch, "\(content) would hold \(bytes) bytes, but its ContentInfo.plist says \(expected)")
        }
    }
}
