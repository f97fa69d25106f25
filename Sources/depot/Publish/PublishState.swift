import DepotBundles
import DepotCore
import Crypto
import DepotServer
import DepotServices
import Foundation

/// What `depot publish` keeps between runs: the archive of a folder (named by its SHA-256) and, per server,
/// the address of its upload, so a rerun after a kill resumes instead of starting over.
struct PublishState {
    /// An archive ready to upload.
    struct Archive {
        var path: String
        var sha256: String
        var size: Int64
    }

    let directory: String

    static func defaultDirectory(_ environment: [String: String]) -> String {
        if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty { return cache + "/depot/publish" }
        return NSHomeDirectory() + "/.cache/depot/publish"
    }

    /// Packs `folder` as a tar under the state directory; the same files give the same archive.
    func archive(of folder: String) throws(PublishError) -> Archive {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw PublishError("cannot create the state directory \(directory): \(error.localizedDescription)")
        }
        let scratch = directory + "/packing-\(UUID().uuidString).tar"
        do {
            try PackTar.write(directory: folder, to: scratch)
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw PublishError("cannot pack \(folder): \(error.description)")
        }
        let digest: String
        do { digest = try FileSHA256.hex(path: scratch) } catch {
            throw PublishError("cannot read the archive: \(error.description)")
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: scratch)[.size]) as? NSNumber)?.int64Value ?? 0
        let path = directory + "/\(digest).tar"
        try? FileManager.default.removeItem(atPath: path)
        do { try FileManager.default.moveItem(atPath: scratch, toPath: path) } catch {
            throw PublishError("cannot keep the archive at \(path): \(error.localizedDescription)")
        }
        return Archive(path: path, sha256: digest, size: size)
    }

    private func record(_ archive: Archive, server: String) -> String {
        let name = Hex.lowercase(SHA256.hash(data: Data((server + "\n" + archive.sha256).utf8)).prefix(16))
        return directory + "/\(name).upload"
    }

    /// The remembered upload address of `archive` on `server`.
    func location(of archive: Archive, server: String) -> String? {
        (try? String(contentsOfFile: record(archive, server: server), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func remember(_ archive: Archive, server: String, location: String) {
        try? (location + "\n").write(toFile: record(archive, server: server), atomically: true, encoding: .utf8)
    }

    /// Forgets the upload and removes the archive once the version is staged.
    func forget(_ archive: Archive, server: String) {
        try? FileManager.default.removeItem(atPath: record(archive, server: server))
        try? FileManager.default.removeItem(atPath: archive.path)
    }
}
