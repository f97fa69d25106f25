import Crypto

/// Streams entries into a ZIP file with bounded memory: each entry's local header is reserved, its data
/// written chunk by chunk, then the header patched with the CRC and sizes (so no data descriptors).
///
/// Whether an entry is deflated depends only on its bytes and the level: a probe deflates the first
/// 64 KiB, and an entry whose probe does not shrink below 97% is stored; one whose whole deflated
/// form is not smaller than the original is cut back and rewritten stored.
final class ZipStreamWriter {
    static let chunkSize = 1 << 20

    /// When to try deflating an entry. Fixed in production (the bytes depend on it); tests vary it.
    struct CompressionPolicy: Sendable {
        /// How much of an entry's start the probe deflates.
        var probeSize = 64 << 10
        /// An entry whose probe output is larger than this fraction of its input is stored.
        var storeRatio = 0.97

        static let standard = CompressionPolicy()
    }

    /// Reads exactly `buffer.count` bytes at `offset` of the entry's source.
    typealias Reader = (_ offset: Int64, _ buffer: UnsafeMutableRawBufferPointer) throws -> Void

    private let out: OutputFile
    private let policy: CompressionPolicy
    private let deflater: Deflater?
    private let input: UnsafeMutableRawBufferPointer
    private let scratch: UnsafeMutableRawBufferPointer
    private var probe: [UInt8] = []
    private(set) var entries: [ZipEntryRecord] = []

    /// `level` 0 stores everything; 1...9 is zlib's level.
    init(out: OutputFile, level: Int, policy: CompressionPolicy = .standard) throws {
        self.out = out
        self.policy = policy
        deflater = level > 0 ? try Deflater(level: Int32(level)) : nil
        input = .allocate(byteCount: Self.chunkSize, alignment: 16)
        scratch = .allocate(byteCount: 256 << 10, alignment: 16)
        probe.reserveCapacity(policy.probeSize + 1024)
    }

    deinit {
        input.deallocate()
        scratch.deallocate()
    }

    /// Appends one entry of `size` bytes named `name` (UTF-8), reading its bytes through `read`.
    func addEntry(name: [UInt8], size: Int64, read: Reader) throws {
        let uncompressedSize = UInt64(size)
        let zip64 = ZipRecords.localNeedsZip64(uncompressedSize: uncompressedSize)
        let headerOffset = out.offset
        try out.append([UInt8](repeating: 0, count: ZipRecords.localHeaderLength(nameLength: name.count, zip64: zip64)))
        let dataStart = out.offset

        var stored = true
        var crc: UInt32 = 0
        var compressedSize = uncompressedSize
        var loaded = 0
        if let deflater, size > 0 {
            loaded = Int(min(size, Int64(Self.chunkSize)))
            try read(0, UnsafeMutableRawBufferPointer(rebasing: input[0..<loaded]))
            let probeCount = min(loaded, policy.probeSize)
            let probeInput = UnsafeRawBufferPointer(rebasing: input[0..<probeCount])
            probe.removeAll(keepingCapacity: true)
            deflater.reset()
            deflater.deflate(probeInput, finish: true, scratch: scratch) { probe.append(contentsOf: $0) }
            if Double(probe.count) <= policy.storeRatio * Double(probeCount) {
                if Int64(probeCount) == size {
                    // The probe was the whole entry.
                    if probe.count < probeCount {
                        crc = Deflater.crc32(0, probeInput)
                        try out.append(probe)
                        compressedSize = UInt64(probe.count)
                        stored = false
                    }
                } else {
                    (crc, compressedSize) = try deflateAll(size: size, loaded: loaded, read: read, deflater: deflater)
                    if compressedSize >= uncompressedSize {
                        try out.truncate(to: dataStart)
                        loaded = 0
                    } else {
                        stored = false
                    }
                }
            }
        }
        if stored {
            crc = try storeAll(size: size, loaded: loaded, read: read)
            compressedSize = uncompressedSize
        }

        let method: ZipMethod = stored ? .stored : .deflated
        try out.patch(
            ZipRecords.localHeader(
                name: name, method: method, crc32: crc, compressedSize: compressedSize,
                uncompressedSize: uncompressedSize, zip64: zip64
            ),
            at: headerOffset
        )
        entries.append(
            ZipEntryRecord(
                name: name, method: method, crc32: crc, compressedSize: compressedSize,
                uncompressedSize: uncompressedSize, localHeaderOffset: UInt64(headerOffset)
            )
        )
    }

    /// Writes the central directory and the end records, and flushes.
    func finish() throws {
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

    // MARK: Data

    /// Deflates the whole entry into the output; the first `loaded` bytes are already in `input`.
    private func deflateAll(size: Int64, loaded: Int, read: Reader, deflater: Deflater) throws -> (UInt32, UInt64) {
        deflater.reset()
        var crc: UInt32 = 0
        var produced: UInt64 = 0
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(size - offset, Int64(Self.chunkSize)))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<count])
            if offset > 0 || loaded < count { try read(offset, chunk) }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(chunk))
            try deflater.deflate(UnsafeRawBufferPointer(chunk), finish: offset + Int64(count) == size, scratch: scratch)
            {
                (piece) throws(SystemCallError) in
                produced += UInt64(piece.count)
                try out.append(piece)
            }
            offset += Int64(count)
        }
        return (crc, produced)
    }

    /// Copies the entry into the output as it is; the first `loaded` bytes are already in `input`.
    private func storeAll(size: Int64, loaded: Int, read: Reader) throws -> UInt32 {
        var crc: UInt32 = 0
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(size - offset, Int64(Self.chunkSize)))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<count])
            if offset > 0 || loaded < count { try read(offset, chunk) }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(chunk))
            try out.append(UnsafeRawBufferPointer(chunk))
            offset += Int64(count)
        }
        return crc
    }

    /// Hashes the finished file with SHA-256 by reading it back in chunks.
    func sha256OfOutput(length: Int64) throws -> String {
        var hasher = SHA256()
        var offset: Int64 = 0
        while offset < length {
            let count = Int(min(length - offset, Int64(Self.chunkSize)))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<count])
            try POSIX.readFully(out.descriptor, into: chunk, at: offset)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(chunk))
            offset += Int64(count)
        }
        return hasher.finalize().lowercaseHex
    }
}
