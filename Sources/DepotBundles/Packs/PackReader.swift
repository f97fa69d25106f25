#if canImport(Glibc)
import DepotSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and validates content packs from disk.
///
/// A pack is a directory holding exactly `pack.json` and `Contents/`, apart from Mac clutter
/// (`PackPath.isClutter(_:)`), which is skipped at any depth and listed in `Pack.ignored`. Every entry is examined with
/// `lstat` semantics (directories are opened relative to their parent with `O_NOFOLLOW`), so a link is
/// reported, never followed. Nothing is written.
package enum PackReader {
    /// The deepest directory nesting accepted under `Contents/`.
    static let maxDepth = 64

    /// Reads the pack at `directory`, refusing it with a `PackError` naming the first offending entry.
    package static func read(directory: String, limits: PackLimits = .default) throws(PackError) -> Pack {
        let status: FileStatus
        do {
            status = try FileStatus.lstat(directory)
        } catch {
            throw PackError(.unreadable, "the pack directory cannot be read: \(error)")
        }
        switch status.kind {
        case .directory: break
        case .symbolicLink: throw PackError(.symlink, "the pack directory is a symbolic link")
        default: throw PackError(.unexpectedEntry, "the pack is not a directory")
        }
        let root = try openDirectory(directory, shown: "the pack directory")
        defer { POSIX.closeFile(root) }

        let names = try list(root, shown: "the pack directory").sorted { $0.lexicographicallyPrecedes($1) }
        var manifest: PackManifest?
        var contents: Int32?
        var ignored: [String] = []
        defer { if let contents { POSIX.closeFile(contents) } }
        for raw in names {
            if PackPath.isClutter(raw) {
                ignored.append(String(decoding: raw, as: UTF8.self))
                continue
            }
            let name = String(decoding: raw, as: UTF8.self)
            let entry = try lstat(root, raw, shown: name)
            switch (name, entry.kind) {
            case ("pack.json", .regular) where raw == Array("pack.json".utf8):
                manifest = try PackManifest.parse(json: readManifest(root))
            case ("Contents", .directory) where raw == Array("Contents".utf8):
                contents = try openDirectory(in: root, raw, shown: "Contents/")
            case ("pack.json", .symbolicLink), ("Contents", .symbolicLink):
                throw PackError(.symlink, "\(name) is a symbolic link; packs may not contain links")
            default:
                throw PackError(
                    .unexpectedEntry,
                    "\(name.debugDescription) is not allowed at the pack root, which holds only pack.json and Contents/"
                )
            }
        }
        guard let manifest else { throw PackError(.badManifest, "pack.json is missing") }
        guard let contents else { throw PackError(.emptyPack, "the pack has no Contents/ directory") }

        var walker = Walker(limits: limits)
        try walker.walk(contents, prefix: "", depth: 0)
        guard !walker.files.isEmpty else { throw PackError(.emptyPack, "Contents/ holds no files") }
        return Pack(directory: directory, manifest: manifest, files: walker.files, ignored: ignored + walker.ignored)
    }

    private static func readManifest(_ root: Int32) throws(PackError) -> [UInt8] {
        let fd: Int32
        do {
            fd = try POSIX.openAt(root, Array("pack.json".utf8), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            throw PackError(.unreadable, "pack.json cannot be opened: \(error)")
        }
        defer { POSIX.closeFile(fd) }
        let limit = PackManifest.maxManifestSize
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        let count: Int
        do {
            guard try FileStatus.fstat(fd).kind == .regular else {
                throw PackError(.specialFile, "pack.json is not a regular file")
            }
            count = try bytes.withUnsafeMutableBytes { buffer throws(SystemCallError) in
                try POSIX.readFully(fd, into: buffer)
            }
        } catch let error as PackError {
            throw error
        } catch {
            throw PackError(.unreadable, "pack.json cannot be read: \(error)")
        }
        guard count <= limit else {
            throw PackError(.badManifest, "pack.json is larger than \(limit) bytes")
        }
        return Array(bytes.prefix(count))
    }

    // MARK: Walking Contents/

    /// Collects the files under `Contents/`, enforcing names, types and limits as it goes.
    private struct Walker {
        let limits: PackLimits
        var files: [PackFile] = []
        /// Clutter skipped, as `Contents/...` paths.
        var ignored: [String] = []
        var totalSize: Int64 = 0

        mutating func walk(_ directory: Int32, prefix: String, depth: Int) throws(PackError) {
            let parent = "Contents" + (prefix.isEmpty ? "" : "/" + prefix.dropLast())
            // Sorted so that the first error reported does not depend on the directory's order.
            let names = try list(directory, shown: parent + "/").sorted { $0.lexicographicallyPrecedes($1) }
            var seen: [String: String] = [:]
            for raw in names {
                if PackPath.isClutter(raw) {
                    ignored.append(parent + "/" + String(decoding: raw, as: UTF8.self))
                    continue
                }
                let name = try PackPath.validateName(raw, parent: parent)
                let relativePath = prefix + name
                let shown = "Contents/" + relativePath
                if let other = seen.updateValue(name, forKey: PackPath.collisionKey(name)) {
                    throw PackError(
                        .caseCollision,
                        "\(parent)/\(other) and \(shown) collide when case is ignored"
                    )
                }
                guard relativePath.utf8.count <= PackPath.maxPathLength else {
                    throw PackError(.badName, "\(shown) is a path longer than \(PackPath.maxPathLength) bytes")
                }
                let status = try lstat(directory, raw, shown: shown)
                switch status.kind {
                case .regular:
                    try add(
                        PackFile(
                            relativePath: relativePath, size: status.size, modificationTime: status.modificationTime),
                        shown: shown)
                case .directory:
                    guard depth < PackReader.maxDepth else {
                        throw PackError(
                            .unsafePath, "\(shown) is nested more than \(PackReader.maxDepth) directories deep")
                    }
                    let child = try openDirectory(in: directory, raw, shown: shown)
                    defer { POSIX.closeFile(child) }
                    try walk(child, prefix: relativePath + "/", depth: depth + 1)
                case .symbolicLink:
                    throw PackError(.symlink, "\(shown) is a symbolic link; packs may not contain links")
                case .device:
                    throw PackError(.specialFile, "\(shown) is a device; packs hold only regular files")
                case .fifo:
                    throw PackError(.specialFile, "\(shown) is a FIFO; packs hold only regular files")
                case .socket:
                    throw PackError(.specialFile, "\(shown) is a socket; packs hold only regular files")
                case .unknown:
                    throw PackError(.specialFile, "\(shown) is not a regular file or a directory")
                }
            }
        }

        private mutating func add(_ file: PackFile, shown: String) throws(PackError) {
            guard files.count < limits.maxFileCount else {
                throw PackError(
                    .tooManyFiles,
                    "\(shown) is past the limit of \(limits.maxFileCount) files in a pack"
                )
            }
            guard file.size <= limits.maxFileSize else {
                throw PackError(
                    .fileTooLarge,
                    "\(shown) is \(file.size) bytes, over the limit of \(limits.maxFileSize) bytes per file"
                )
            }
            totalSize += file.size
            guard totalSize <= limits.maxTotalSize else {
                throw PackError(
                    .packTooLarge,
                    "\(shown) brings the pack past the limit of \(limits.maxTotalSize) bytes in all"
                )
            }
            files.append(file)
        }
    }

    // MARK: System calls, with errors phrased for the pack

    static func openDirectory(_ path: String, shown: String) throws(PackError) -> Int32 {
        do {
            return try POSIX.openFile(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be opened: \(error)")
        }
    }

    static func openDirectory(in parent: Int32, _ name: [UInt8], shown: String) throws(PackError) -> Int32 {
        do {
            return try POSIX.openAt(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch  where error.code == ELOOP || error.code == ENOTDIR {
            throw PackError(.packChanged, "\(shown) stopped being a directory while the pack was read")
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be opened: \(error)")
        }
    }

    static func list(_ directory: Int32, shown: String) throws(PackError) -> [[UInt8]] {
        do {
            return try POSIX.listDirectory(directory)
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be listed: \(error)")
        }
    }

    static func lstat(_ directory: Int32, _ name: [UInt8], shown: String) throws(PackError) -> FileStatus {
        do {
            return try FileStatus.lstat(in: directory, name: name)
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be examined: \(error)")
        }
    }
}
