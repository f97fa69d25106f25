import Foundation

/// A bundle being downloaded: `NAME.partial` holds the bytes received so far and `NAME.partial.etag` the
/// validator of the answer they came from. Those two files are all the state a resume needs, across
/// broken connections and process restarts.
///
/// A partial file without its validator is not trusted: it is started again from zero.
struct PartialFile: Sendable {
    /// The bytes so far.
    let path: String
    /// The `ETag` of the answer the bytes came from.
    var validatorPath: String { path + ".etag" }

    /// The partial file for the bundle `digest` of the content installed at `destination`: beside it, named
    /// after the content and the digest, so that bundles of two versions never share one.
    init(destination: String, digest: String) {
        path = destination + "." + String(digest.prefix(16)) + ".partial"
    }

    /// Bytes on disk, 0 when there is no file.
    var length: Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { return 0 }
        return size.int64Value
    }

    /// The validator kept for the bytes on disk; nil when there are none or it is missing.
    var validator: String? {
        guard let data = FileManager.default.contents(atPath: validatorPath), !data.isEmpty,
            FileManager.default.fileExists(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts over: an empty partial file whose bytes will come from the answer with `validator`.
    func restart(validator: String?) throws(DepotClientError) {
        remove()
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw DepotClientError(.io, "cannot create \(path)")
        }
        if let validator {
            guard FileManager.default.createFile(atPath: validatorPath, contents: Data(validator.utf8)) else {
                throw DepotClientError(.io, "cannot write \(validatorPath)")
            }
        }
    }

    /// A handle appending at the end of the partial file.
    func appendingHandle() throws(DepotClientError) -> FileHandle {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw DepotClientError(.io, "cannot open \(path) for writing")
        }
        do {
            try handle.seekToEnd()
        } catch {
            throw DepotClientError(.io, "cannot seek in \(path): \(error.localizedDescription)")
        }
        return handle
    }

    /// Removes the partial file and its validator.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: validatorPath)
    }
}
