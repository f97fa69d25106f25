import Foundation

/// Applies a delta bundle over the installed version, in a work folder: copies the installed `Contents/`,
/// deletes the delta's `RemovedPaths` (and the folders this empties), then moves the delta's files in.
struct DeltaApplication {
    /// The installed content's folder.
    let installed: String
    /// The version the delta applies over.
    let base: String
    /// The folder the result is built in (must not exist).
    let work: String

    /// Builds the new version in `work` from the delta unpacked at `unpacked`, whose files are `files`
    /// (paths starting with `Contents/`) and whose property list is `info`.
    func apply(unpacked: String, files: [String], info: ContentInfoFile) throws(DepotClientError) {
        let installedInfo: ContentInfoFile
        do {
            installedInfo = try ContentInfoFile(path: installed + "/ContentInfo.plist")
        } catch {
            throw DepotClientError(.bundleMismatch, "the delta applies over version \(base), but no installed version was found")
        }
        guard installedInfo.contentVersion == base else {
            throw DepotClientError(
                .bundleMismatch,
                "the delta applies over version \(base), but version \(installedInfo.contentVersion ?? "?") is installed")
        }
        try Files.createDirectory(work)
        do {
            try FileManager.default.copyItem(atPath: installed + "/Contents", toPath: work + "/Contents")
        } catch {
            throw DepotClientError(.io, "cannot copy the installed version: \(error.localizedDescription)")
        }
        for removed in info.removedPaths {
            try remove(removed)
        }
        for file in files {
            let target = work + "/" + file
            try Files.createDirectory((target as NSString).deletingLastPathComponent)
            Files.remove(target)
            try Files.rename(unpacked + "/" + file, to: target)
        }
        try Files.createDirectory(work + "/Contents")
        try info.writeInstalled(to: work + "/ContentInfo.plist")
    }

    /// Deletes one of `RemovedPaths` (a file relative to `Contents/`) and the folders it leaves empty.
    private func remove(_ relative: String) throws(DepotClientError) {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else {
            throw DepotClientError(.unsafeBundle, "the delta's RemovedPaths holds \(relative), which is not a path inside Contents/")
        }
        let root = work + "/Contents"
        let path = root + "/" + relative
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType,
            type == .typeRegular
        else {
            throw DepotClientError(.bundleMismatch, "the delta removes \(relative), which the installed version does not have")
        }
        Files.remove(path)
        var folder = (path as NSString).deletingLastPathComponent
        while folder != root, (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
            Files.remove(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
    }
}
