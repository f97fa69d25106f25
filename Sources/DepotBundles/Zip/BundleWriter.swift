#if canImport(Glibc)
import DepotSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the deterministic ZIP of a pack: `ContentInfo.plist` first, then `Contents/<files>`.
///
/// The same pack (same manifest fields, same file paths and bytes) at the same level gives the same
/// bytes, whatever the files' times, owners, modes or creation order, and whatever the number of threads:
/// entries are sorted by the UTF-8 bytes of their names, there are no directory entries, times are
/// 1980-01-01 00:00, attributes are a Unix regular file 0644, names are flagged UTF-8, and no extra fields
/// appear except ZIP64's (an entry of 4 GiB or more, an offset past 4 GiB, or 65,535 entries or more).
///
/// Entries are compressed on `parallelism` worker threads: an entry is cut into 1 MiB chunks deflated
/// independently by libdeflate (see `ChunkCompressor`), and the chunks are laid out in order by the calling
/// thread. Memory stays bounded: a few chunks per thread are in flight, and the output is written through a
/// 1 MiB buffer. The deflate stream comes from the system's libdeflate, so determinism across machines holds
/// for the same libdeflate version (its version is part of the store's build fingerprint).
package struct BundleWriter: Sendable {
    /// Bumped whenever the bytes written for a given pack change. 2: entries over 1 MiB are deflated in
    /// independent 1 MiB chunks. 3: deflated by libdeflate (at the level plus one) instead of zlib, chunks
    /// without a preset dictionary. Bundles of earlier versions stay valid: their digests name their bytes.
    package static let formatVersion = 3
    /// The level used when none is given: zlib's default, which libdeflate's 7 matches in size.
    package static let defaultCompressionLevel = 6
    /// The threads used when none is given: one per online CPU, at most 8 (past that, bundling one pack
    /// is limited by reading it, and each thread holds a few MiB).
    package static let defaultParallelism: Int = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 8)

    /// The deflate level on zlib's scale, 0 (store everything) to 9; out-of-range values are clamped.
    package let compressionLevel: Int
    /// How many threads compress; 1 compresses on the calling thread. Never changes the bytes.
    package let parallelism: Int

    /// When to try deflating; only tests change it.
    let policy: CompressionPolicy

    /// A writer deflating at `compressionLevel` (clamped to 0...9) on `parallelism` threads (at least 1).
    package init(
        compressionLevel: Int = BundleWriter.defaultCompressionLevel,
        parallelism: Int = BundleWriter.defaultParallelism
    ) {
        self.init(compressionLevel: compressionLevel, parallelism: parallelism, policy: .standard)
    }

    init(compressionLevel: Int, parallelism: Int = BundleWriter.defaultParallelism, policy: CompressionPolicy) {
        self.compressionLevel = min(max(compressionLevel, 0), 9)
        self.parallelism = max(parallelism, 1)
        self.policy = policy
    }

    /// Writes `pack`'s bundle to `path`, which must not exist, and returns its SHA-256 digest and size.
    /// `sync` makes the file durable (fsync) before returning. On any failure the file is removed.
    ///
    /// Throws `PackError` when a file is no longer what the pack recorded (`pack-changed`) or cannot be
    /// read, and `BundleStoreError` when the bundle cannot be written.
    package func write(_ pack: Pack, to path: String, sync: Bool = false) throws -> BundleRecord {
        try write(info: ContentInfo(pack: pack), from: pack, files: pack.files, to: path, sync: sync)
    }

    /// Writes a bundle holding `info` and those of `pack`'s `files` given (sorted, a subset of
    /// `pack.files`) to `path`, which must not exist.
    func write(
        info: ContentInfo, from pack: Pack, files: [PackFile], to path: String, sync: Bool
    ) throws
        -> BundleRecord
    {
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
            let zip = ZipStreamWriter(out: out)
            let pipeline = BundlePipeline(level: compressionLevel, policy: policy, parallelism: parallelism)
            var sources = try EntrySources(info: info, pack: pack, files: files)
            try pipeline.run(into: zip) { try sources.next() }
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
}

/// The entries of a bundle in order, each opened when it is asked for: `ContentInfo.plist`, then the
/// files, each checked against what the pack recorded.
private struct EntrySources {
    private var info: [UInt8]?
    private let opener: ContentsOpener
    private var files: IndexingIterator<[PackFile]>

    init(info: ContentInfo, pack: Pack, files: [PackFile]) throws(PackError) {
        self.info = info.propertyList
        self.opener = try ContentsOpener(contentsDirectory: pack.contentsDirectory)
        self.files = files.makeIterator()
    }

    mutating func next() throws(PackError) -> EntrySource? {
        if let bytes = info {
            info = nil
            return EntrySource(name: ContentInfo.entryName, bytes: bytes)
        }
        guard let file = files.next() else { return nil }
        return try opener.openEntry(file)
    }
}
