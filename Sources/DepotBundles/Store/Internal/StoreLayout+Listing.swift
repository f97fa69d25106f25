import DepotCore
import DepotSystem
import Foundation

extension StoreLayout {
    /// The bundle files in place, least recently modified first.
    func storedBundles() -> [(digest: BundleDigest, size: Int64)] {
        var found: [(digest: BundleDigest, size: Int64, modified: Int64)] = []
        let files = FileManager.default
        for shard in (try? files.contentsOfDirectory(atPath: root)) ?? [] where shard.utf8.count == 2 {
            for name in (try? files.contentsOfDirectory(atPath: root + "/" + shard)) ?? [] where name.hasSuffix(".zip") {
                guard let digest = BundleDigest(hex: name.dropLast(4)), digest.shard == shard,
                    let status = try? FileStatus.lstat(bundlePath(for: digest)), status.kind == .regular
                else { continue }
                found.append((digest, status.size, status.modificationTime))
            }
        }
        return found.sorted { ($0.modified, $0.digest.hex) < ($1.modified, $1.digest.hex) }.map { ($0.digest, $0.size) }
    }
}
