import DepotCore
import Foundation

/// Makes an unpacked upload a pack when the publisher sent only what it delivers: `pack.json` is optional for an
/// upload (the request names the product and version), and without `Contents/` the archive's files themselves are
/// the content. The content directory import still reads `pack.json` as it is.
enum PackFolderCompletion {
    /// What the request says about the version, for a `pack.json` written in its place.
    struct Facts {
        var productId: String
        var version: String
        /// The content id; nil: the product id.
        var contentId: String?
        /// Publication time, seconds since 1970.
        var publishedAt: Int64
        /// The product's title.
        var title: String?
    }

    /// Why a folder could not be completed.
    struct Failure: Error {
        var reason: String
    }

    /// The folder of the pack in `scratch` (an unpacked upload): `scratch` itself, or the single folder at its top
    /// (ignoring `__MACOSX`) when that one holds `pack.json` or `Contents/` and `scratch` holds neither, as
    /// `zip -r pack.zip pack/` makes. An archive of plain files is its own folder.
    static func packFolder(in scratch: String) -> String {
        if isPack(scratch) { return scratch }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter { $0 != "__MACOSX" }
        guard names.count == 1 else { return scratch }
        let inner = (scratch as NSString).appendingPathComponent(names[0])
        return isDirectory(inner) && isPack(inner) ? inner : scratch
    }

    /// Writes `pack.json` from `facts` into `folder` when it has none, first moving everything in it into a new
    /// `Contents/` when it has no `Contents/` either. A folder with `pack.json` is left as it is (the stager checks
    /// it against the request).
    static func complete(_ folder: String, with facts: Facts) throws(Failure) {
        let files = FileManager.default
        let manifest = (folder as NSString).appendingPathComponent("pack.json")
        guard !files.fileExists(atPath: manifest) else { return }
        let contents = (folder as NSString).appendingPathComponent("Contents")
        if !isDirectory(contents) {
            let gathering = (folder as NSString).appendingPathComponent(".contents-\(UInt64.random(in: 0...UInt64.max))")
            do {
                let names = try files.contentsOfDirectory(atPath: folder)
                guard !names.isEmpty else { throw Failure(reason: "the upload holds no files") }
                try files.createDirectory(atPath: gathering, withIntermediateDirectories: false)
                for name in names {
                    try files.moveItem(
                        atPath: (folder as NSString).appendingPathComponent(name),
                        toPath: (gathering as NSString).appendingPathComponent(name))
                }
                try files.moveItem(atPath: gathering, toPath: contents)
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure(reason: "the upload's files could not be gathered into Contents/: \(error.localizedDescription)")
            }
        }
        var object: [String: String] = [
            "productId": facts.productId, "version": facts.version, "contentId": facts.contentId ?? facts.productId,
            "publishedAt": UTCTimestamp.format(facts.publishedAt),
        ]
        if let title = facts.title { object["title"] = title }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try data.write(to: URL(fileURLWithPath: manifest))
        } catch {
            throw Failure(reason: "pack.json could not be written: \(error.localizedDescription)")
        }
    }

    private static func isPack(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("pack.json"))
            || isDirectory((folder as NSString).appendingPathComponent("Contents"))
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
