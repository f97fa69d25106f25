#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads zip, tar and tar.gz archives and extracts them safely.
///
/// Safe means: nothing is written outside the extraction directory and nothing there is overwritten;
/// links, devices and FIFOs, duplicate paths and names that are not valid UTF-8 are refused; sizes, entry
/// counts and compression ratios stay within `ArchiveLimits`, judged on the bytes actually produced.
/// Reading streams in fixed buffers: memory does not grow with the archive's size (only the list of entry
/// names, bounded by `maxEntries`, is kept).
///
/// Calls block on file I/O: run them off an event loop.
public enum Archive {
    /// Extracts the archive at `archive` into `directory`, which must be empty or not exist yet (it is
    /// created). On a refusal, everything extraction created is removed again and the error says which
    /// entry and why. Returns the entries extracted, in archive order.
    @discardableResult
    public static func extract(
        _ archive: String, into directory: String, limits: ArchiveLimits = ArchiveLimits()
    ) throws(ArchiveError) -> [ArchiveEntry] {
        try prepare(directory)
        let sink = EntrySink(root: directory, limits: limits)
        do {
            try read(archive, into: sink, limits: limits)
        } catch {
            sink.removeCreated()
            throw error
        }
        return sink.entries
    }

    /// Reads the whole archive, checking it as `extract` would (CRCs, sizes, limits, names), and returns
    /// its entries without writing anything.
    public static func entries(
        _ archive: String, limits: ArchiveLimits = ArchiveLimits()
    ) throws(ArchiveError)
        -> [ArchiveEntry]
    {
        let sink = EntrySink(root: nil, limits: limits)
        try read(archive, into: sink, limits: limits)
        return sink.entries
    }

    private static func read(_ archive: String, into sink: EntrySink, limits: ArchiveLimits) throws(ArchiveError) {
        let format = try ArchiveFormat.detect(path: archive)
        let file = try InputFile(path: archive)
        defer { file.close() }
        switch format {
        case .zip:
            try ZipReader(file: file, limits: limits).read(into: sink)
        case .tar:
            try TarReader(stream: FileStream(file), limits: limits).read(into: sink)
        case .tarGzip:
            let gzip = try GzipStream(source: FileStream(file), limits: limits)
            try TarReader(stream: gzip, limits: limits).read(into: sink)
            // The tar's end marker may leave padding; the gzip stream must still be whole (its trailer checked).
            var rest = [UInt8](repeating: 0, count: 64 << 10)
            while try rest.withMutableBytes({ raw throws(ArchiveError) in try gzip.read(into: raw) }) > 0 {}
        }
    }

    /// Creates `directory` (one level) or checks that it is an empty directory.
    private static func prepare(_ directory: String) throws(ArchiveError) {
        if mkdir(directory, 0o755) == 0 { return }
        guard errno == EEXIST else {
            throw ArchiveError(.io, "cannot create the extraction directory: \(systemErrorText())")
        }
        guard let handle = opendir(directory) else {
            throw ArchiveError(.io, "cannot open the extraction directory: \(systemErrorText())")
        }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." {
                throw ArchiveError(.io, "the extraction directory is not empty")
            }
        }
    }
}
