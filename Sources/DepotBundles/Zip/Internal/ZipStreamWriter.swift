import DepotCore
import DepotSystem
import Crypto

/// Lays entries out in a ZIP file, in order, from their chunks as the workers produced them: each entry's
/// local header is reserved, its chunks appended, then the header patched with the CRC and sizes (so no
/// data descriptors). Memory stays bounded: nothing but the central directory records outlives a chunk.
///
/// An entry whose deflated form turns out no smaller than the original is cut back and written again,
/// stored, from its source.
final class ZipStreamWriter {
    /// The entry being written.
    private struct Current {
        let source: EntrySource
        let headerOffset: Int64
        let dataStart: Int64
        var method: ZipMethod?
        var crc: UInt32 = 0
        var length: Int64 = 0
        var written: UInt64 = 0
    }

    private let out: OutputFile
    private let buffer: UnsafeMutableRawBufferPointer
    private var current: Current?
    private(set) var entries: [ZipEntryRecord] = []

    init(out: OutputFile) {
        self.out = out
        buffer = .allocate(byteCount: ChunkCompressor.chunkSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Takes the next chunk of output, in order: the first chunk of an entry starts it, the last ends it.
    func add(_ job: ChunkJob, _ output: ChunkOutput) throws {
        if job.isFirst { try begin(job.source) }
        guard var entry = current, entry.source === job.source else {
            preconditionFailure("chunks must arrive in order")
        }
        precondition(entry.method == nil || entry.method == output.method, "one method per entry")
        entry.method = output.method
        entry.crc =
            entry.length == 0
            ? output.crc32 : CRC32.combine(entry.crc, output.crc32, secondLength: Int64(output.length))
        entry.length += Int64(output.length)
        entry.written += UInt64(output.bytes.count)
        try out.append(output.bytes)
        current = entry
        if job.isLast { try end() }
    }

    private func begin(_ source: EntrySource) throws {
        precondition(current == nil, "an entry is still open")
        let zip64 = ZipRecords.localNeedsZip64(uncompressedSize: UInt64(source.size))
        let headerOffset = out.offset
        let headerLength = ZipRecords.localHeaderLength(nameLength: source.name.count, zip64: zip64)
        try out.append([UInt8](repeating: 0, count: headerLength))
        current = Current(source: source, headerOffset: headerOffset, dataStart: out.offset)
    }

    private func end() throws {
        guard var entry = current else { preconditionFailure("no entry is open") }
        current = nil
        let size = UInt64(entry.source.size)
        precondition(entry.length == entry.source.size)
        if entry.method == .deflated, entry.written >= size {
            try out.truncate(to: entry.dataStart)
            entry.crc = try copyStored(entry.source)
            entry.method = .stored
            entry.written = size
        }
        let method = entry.method ?? .stored
        let zip64 = ZipRecords.localNeedsZip64(uncompressedSize: size)
        try out.patch(
            ZipRecords.localHeader(
                name: entry.source.name, method: method, crc32: entry.crc, compressedSize: entry.written,
                uncompressedSize: size, zip64: zip64
            ),
            at: entry.headerOffset
        )
        entries.append(
            ZipEntryRecord(
                name: entry.source.name, method: method, crc32: entry.crc, compressedSize: entry.written,
                uncompressedSize: size, localHeaderOffset: UInt64(entry.headerOffset)
            )
        )
    }

    /// Copies the entry into the output as it is, and returns its CRC-32.
    private func copyStored(_ source: EntrySource) throws -> UInt32 {
        var crc: UInt32 = 0
        var offset: Int64 = 0
        while offset < source.size {
            let count = Int(min(source.size - offset, Int64(buffer.count)))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            try source.read(at: offset, into: chunk)
            crc = CRC32.update(crc, UnsafeRawBufferPointer(chunk))
            try out.append(UnsafeRawBufferPointer(chunk))
            offset += Int64(count)
        }
        return crc
    }

    /// Writes the central directory and the end records, and flushes.
    func finish() throws {
        precondition(current == nil, "an entry is still open")
        let centralDirectoryOffset = out.offset
        for entry in entries { try out.append(ZipRecords.centralHeader(entry)) }
        let centralDirectorySize = out.offset - centralDirectoryOffset
        try out.append(
            ZipRecords.end(
                entryCount: entries.count, centralDirectoryOffset: UInt64(centralDirectoryOffset),
                centralDirectorySize: UInt64(centralDirectorySize)
            )
        )
        try out.flush()
    }

    /// Hashes the finished file with SHA-256 by reading it back in chunks.
    func sha256OfOutput(length: Int64) throws -> BundleDigest {
        var hasher = SHA256()
        var offset: Int64 = 0
        while offset < length {
            let count = Int(min(length - offset, Int64(buffer.count)))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            try POSIX.readFully(out.descriptor, into: chunk, at: offset)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(chunk))
            offset += Int64(count)
        }
        return hasher.finalize().bundleDigest
    }
}
