#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the deterministic ZIP of a pack: `ContentInfo.plist` first, then `Contents/<files>`.
///
/// The same pack (same manifest fields, same file paths and bytes) at the same level gives the same
/// bytes, whatever the files' times, owners, modes or creation order: entries are sorted by the UTF-8
/// bytes of their names, there are no directory entries, times are 1980-01-01 00:00, attributes are
/// a Unix regular file 0644, names are flagged UTF-8, and no extra fields appear except ZIP64's (an
/// entry of 4 GiB or more, an offset past 4 GiB, or 65,535 entries or more). Memory stays bounded: files
/// are read in 1 MiB chunks. The deflate stream comes from the system zlib, so determinism across
/// machines holds for the same zlib version (its version is part of the store's build fingerprint).
package struct BundleWriter: Sendable {
    /// Bumped whenever the bytes written for a given pack change.
    package static let formatVersion = 1
    /// The level used when none is given: zlib's default.
    package static let defaultCompressionLevel = 6

    /// zlib's level, 0 (store everything) to 9; out-of-range values are clamped.
    package let compressionLevel: Int

    /// When to try deflating; only tests change it.
    let policy: ZipStreamWriter.CompressionPolicy

    /// A writer deflating at `compressionLevel` (clamped to 0...9).
    package init(compressionLevel: Int = BundleWriter.defaultCompressionLevel) {
        self.init(compressionLevel: compressionLevel, policy: .standard)
    }

    init(compressionLevel: Int, policy: ZipStreamWriter.CompressionPolicy) {
        self.compressionLevel = min(max(compressionLevel, 0), 9)
        self.policy = policy
    }

    /// Writes `pack`'s bundle to `path`, which must not exist, and returns its SHA-256 digest and size.
    /// `sync` makes the file durable (fsync) before returning. On any failure the file is removed.
    ///
    /// Throws `PackError` when a file is no longer what the pack recorded (`pack-changed`) or cannot be
    /// read, and `BundleStoreError` when the bundle cannot be written.
    package func write(_ pack: Pack, to path: String, sync: Bool = false) throws -> BundleRecord {
        let fd: Int32
        do {
            fd = try POSIX.openFile(path, O_RDWR | O_CREAT | O_EXCL, mode: 0o644)
        } catch {
            throw BundleStoreError("creating the bundle file", error)
        }
        var finished = false
        defer {
            POSIX.closeFile(fd)
            if !finished { POSIX.unlinkFile(path) }
        }
        do {
            let out = OutputFile(descriptor: fd)
            let zip = try ZipStreamWriter(out: out, level: compressionLevel, policy: policy)
            try writeEntries(pack, to: zip)
            try zip.finish()
            if sync { try POSIX.sync(fd) }
            let size = out.offset
            let digest = try zip.sha256OfOutput(length: size)
            finished = true
            return BundleRecord(digest: digest, size: size)
        } catch let error as SystemCallError {
            throw BundleStoreError("writing the bundle", error)
        }
    }

    private func writeEntries(_ pack: Pack, to zip: ZipStreamWriter) throws {
        let info = ContentInfo(pack: pack).propertyList
        try zip.addEntry(name: Array(ContentInfo.entryName.utf8), size: Int64(info.count)) { offset, buffer in
            info.withUnsafeBytes { raw in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[Int(offset)..<Int(offset) + buffer.count]))
            }
        }
        let opener = try ContentsOpener(contentsDirectory: pack.contentsDirectory)
        for file in pack.files {
            let shown = "Contents/" + file.relativePath
            let fd = try opener.open(file.relativePath)
            defer { POSIX.closeFile(fd) }
            let before = try status(of: fd, shown: shown)
            guard before.kind == .regular, before.size == file.size,
                file.modificationTime.map({ $0 == before.modificationTime }) ?? true
            else {
                throw PackError(.packChanged, "\(shown) changed after the pack was read")
            }
            try zip.addEntry(name: Array(shown.utf8), size: file.size) { offset, buffer in
                do throws(SystemCallError) {
                    try POSIX.readFully(fd, into: buffer, at: offset)
                } catch  where error.code == EIO {
                    throw PackError(.packChanged, "\(shown) shrank while it was bundled")
                } catch {
                    throw PackError(.unreadable, "\(shown) cannot be read: \(error)")
                }
            }
            let after = try status(of: fd, shown: shown)
            guard after.size == before.size, after.modificationTime == before.modificationTime else {
                throw PackError(.packChanged, "\(shown) changed while it was bundled")
            }
        }
    }

    private func status(of fd: Int32, shown: String) throws(PackError) -> FileStatus {
        do {
            return try FileStatus.fstat(fd)
        } catch {
            throw PackError(.unreadable, "\(shown) cannot be examined: \(error)")
        }
    }
}
