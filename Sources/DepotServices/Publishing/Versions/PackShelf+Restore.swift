import DepotArchives
import DepotBundles
import DepotCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a pack could not be made again from its bundle.
package struct PackRestoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package var description: String
}

extension PackShelf {
    /// Makes the pack of `digest` again from its bundle at `bundlePath`, onto the shelf, when no copy of it is here
    /// (another instance staged the version; the bundles are shared through an object store): the bundle is unpacked
    /// with the archive limits of `limits`, its `ContentInfo.plist` becomes `pack.json` (the bundle's bytes depend on
    /// no other manifest field), and the pack read back must describe the same content, version, file count and size.
    /// A delta bundle is refused. Blocking file work: call it off the event loops.
    package func restore(digest: BundleDigest, fromBundle bundlePath: String, limits: PackLimits) throws -> Pack {
        if let pack = pack(digest: digest, limits: limits) { return pack }
        let files = FileManager.default
        let partial = (root as NSString).appendingPathComponent(".partial-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? files.removeItem(atPath: partial) }
        try Archive.extract(
            bundlePath, into: partial,
            limits: ArchiveLimits(
                maxEntries: limits.maxFileCount + 1, maxEntryBytes: limits.maxFileSize, maxTotalBytes: limits.maxTotalSize))
        let infoPath = (partial as NSString).appendingPathComponent(ContentInfo.entryName)
        guard let data = files.contents(atPath: infoPath),
            let info = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
        else { throw PackRestoreError(description: "the bundle \(digest) has no readable ContentInfo.plist") }
        guard info["BaseContentVersion"] == nil else {
            throw PackRestoreError(description: "the bundle \(digest) is a delta, not a version")
        }
        guard let contentId = info["ContentIdentifier"] as? String, let version = info["ContentVersion"] as? String,
            let productId = info["IAPProductIdentifier"] as? String, let publishedAt = info["PublishedAt"] as? String
        else { throw PackRestoreError(description: "the bundle \(digest)'s ContentInfo.plist lacks a key") }
        let manifest: [String: String] = [
            "productId": productId, "contentId": contentId, "version": version, "publishedAt": publishedAt,
        ]
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: (partial as NSString).appendingPathComponent("pack.json")))
        try files.removeItem(atPath: infoPath)
        let read = try PackReader.read(directory: partial, limits: limits)
        let expected = ContentInfo(pack: read)
        guard expected.contentIdentifier == contentId, expected.contentVersion == version,
            expected.fileCount == (info["FileCount"] as? NSNumber)?.intValue,
            expected.unpackedSize == (info["UnpackedSize"] as? NSNumber)?.int64Value
        else { throw PackRestoreError(description: "the pack made again from bundle \(digest) does not match its ContentInfo.plist") }
        let target = (root as NSString).appendingPathComponent(digest.hex)
        do {
            try files.moveItem(atPath: partial, toPath: target)
        } catch {
            // Another restore placed the same pack meanwhile: the same files.
            guard files.fileExists(atPath: target) else { throw error }
        }
        guard let pack = pack(digest: digest, limits: limits) else {
            throw PackRestoreError(description: "the pack made again from bundle \(digest) cannot be read")
        }
        return pack
    }
}
