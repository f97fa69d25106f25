import DepotArchives
import Foundation

/// Puts a verified bundle into place: unpacked into a scratch folder beside the destination (no entry may
/// escape it: absolute paths, `..` and links are refused), a delta applied over the installed version in
/// a second scratch folder, then renamed over the destination. The destination holds either the old
/// version or the new one, never a mixture.
struct BundleInstaller: Sendable {
    /// The content's folder, `ContentInfo.plist` beside `Contents/`.
    let destination: String

    /// The folder the destination is in.
    var parent: String { (destination as NSString).deletingLastPathComponent }
    /// The destination's own name.
    var name: String { (destination as NSString).lastPathComponent }

    /// Installs `bundle`, the verified file of `download`, after tidying what an interrupted install left.
    func install(bundle: String, download: Download) throws(DepotClientError) {
        try Files.createDirectory(parent)
        recoverLeftovers()
        let unpacked = scratchPath("unpack")
        defer { Files.remove(unpacked) }
        let entries: [ArchiveEntry]
        do {
            entries = try Archive.extract(bundle, into: unpacked)
        } catch {
            throw DepotClientError(
                error.code == .io ? .io : .unsafeBundle, "the bundle of \(download.contentId) was refused: \(error.description)")
        }
        for entry in entries where entry.path != "ContentInfo.plist" && entry.path != "Contents" && !entry.path.hasPrefix("Contents/") {
            throw DepotClientError(.unsafeBundle, "the bundle of \(download.contentId) holds \(entry.path), outside Contents/")
        }
        let info = try ContentInfoFile(path: unpacked + "/ContentInfo.plist")
        guard info.contentIdentifier == nil || info.contentIdentifier == download.contentId,
            info.contentVersion == download.version
        else {
            throw DepotClientError(
                .bundleMismatch,
                "the bundle holds \(info.contentIdentifier ?? "?") \(info.contentVersion ?? "?"), not \(download.contentId) \(download.version)"
            )
        }
        if let base = info.baseContentVersion {
            let applied = scratchPath("apply")
            defer { Files.remove(applied) }
            try DeltaApplication(installed: destination, base: base, work: applied).apply(
                unpacked: unpacked, files: entries.filter { $0.kind == .file && $0.path.hasPrefix("Contents/") }.map(\.path),
                info: info)
            try Files.check(applied, against: info, content: download.contentId)
            try swapIntoPlace(applied)
        } else {
            try Files.createDirectory(unpacked + "/Contents")
            try Files.check(unpacked, against: info, content: download.contentId)
            try swapIntoPlace(unpacked)
        }
    }

    /// Renames `ready` over the destination: the old folder is moved aside first, then removed.
    private func swapIntoPlace(_ ready: String) throws(DepotClientError) {
        let aside = scratchPath("replaced")
        let hadOld = FileManager.default.fileExists(atPath: destination)
        if hadOld { try Files.rename(destination, to: aside) }
        do {
            try Files.rename(ready, to: destination)
        } catch {
            if hadOld { try? Files.rename(aside, to: destination) }
            throw error
        }
        Files.remove(aside)
    }

    /// A fresh hidden path beside the destination.
    private func scratchPath(_ purpose: String) -> String {
        parent + "/." + name + "." + purpose + "-" + UUID().uuidString.prefix(8).lowercased()
    }
}
