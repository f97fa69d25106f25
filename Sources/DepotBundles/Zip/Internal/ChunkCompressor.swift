import DepotSystem

/// One piece of work for the bundle's worker threads: chunk `index` of an entry, `count` bytes at `offset`.
struct ChunkJob: Sendable {
    let source: EntrySource
    let index: Int
    let offset: Int64
    let count: Int
    var isFirst: Bool { index == 0 }
    var isLast: Bool { offset + Int64(count) == source.size }

    /// The chunks of `source`: one per started `ChunkCompressor.chunkSize` bytes, and one (empty) for an
    /// empty entry, so every entry passes through the pool and comes back in order.
    static func chunks(of source: EntrySource) -> LazyMapSequence<Range<Int>, ChunkJob> {
        let size = source.size
        let chunkSize = Int64(ChunkCompressor.chunkSize)
        let count = max(1, Int((size + chunkSize - 1) / chunkSize))
        return (0..<count).lazy.map { index in
            let offset = Int64(index) * chunkSize
            return ChunkJob(source: source, index: index, offset: offset, count: Int(min(chunkSize, size - offset)))
        }
    }
}

/// What a chunk job gives back: the chunk's CRC-32 and length, and its bytes as they go into the
/// archive (deflated, or as they are).
struct ChunkOutput: Sendable {
    let crc32: UInt32
    let length: Int
    let method: ZipMethod
    let bytes: [UInt8]
}

/// Compresses chunks of entries, one worker thread each (the compressor and buffers are not shared).
///
/// An entry larger than one chunk is cut into `chunkSize` pieces deflated independently, the way pigz
/// does: each piece is deflated whole by libdeflate, and every piece but the last is then opened
/// (`DeflateStreamOpener`: its final bit cleared, an empty stored block appended), so that laid end to end the
/// pieces are one valid deflate stream. The bytes are a function of the entry's bytes, the level and the policy
/// only: chunk boundaries are fixed offsets and no chunk depends on another, so neither the thread count nor
/// timing can change them. An entry of one chunk (up to 1 MiB) is one libdeflate stream.
final class ChunkCompressor {
    /// The size of the pieces entries are cut into. Part of the format: changing it changes the bytes.
    static let chunkSize = 1 << 20

    private let level: Int
    private let policy: CompressionPolicy
    private let arrays: ByteArrayPool
    private var deflater: BlockDeflater?
    private var opener: DeflateStreamOpener?
    /// The probe's output when it is not the entry's.
    private var probe: [UInt8] = []
    /// Up to `chunkSize` bytes of the chunk.
    private let input: UnsafeMutableRawBufferPointer

    /// A compressor at the bundle level `level` (0 stores everything) taking output arrays from `arrays`.
    init(level: Int, policy: CompressionPolicy, arrays: ByteArrayPool) {
        self.level = level
        self.policy = policy
        self.arrays = arrays
        input = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        input.deallocate()
    }

    /// The chunk's bytes as they go into the archive.
    func compress(_ job: ChunkJob) -> Result<ChunkOutput, any Error> {
        Result { try run(job) }
    }

    private func run(_ job: ChunkJob) throws -> ChunkOutput {
        let source = job.source
        guard level > 0, source.size > 0 else { return try stored(job) }
        let deflater = try self.deflater ?? BlockDeflater(level: level, maximumInput: Self.chunkSize)
        self.deflater = deflater

        if source.size <= Int64(policy.probeSize) {
            // The probe is the whole entry: its output is kept when it is worth it.
            let chunk = try read(job.count, at: 0, of: source)
            var bytes = arrays.take()
            try deflater.deflate(chunk, appendingTo: &bytes)
            let crc = CRC32.update(0, chunk)
            if worthDeflating(bytes.count, of: job.count), bytes.count < job.count {
                return ChunkOutput(crc32: crc, length: job.count, method: .deflated, bytes: bytes)
            }
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: chunk)
            return ChunkOutput(crc32: crc, length: job.count, method: .stored, bytes: bytes)
        }

        let deflate = try source.shouldDeflate { () throws -> Bool in
            let probeInput = try read(policy.probeSize, at: 0, of: source)
            probe.removeAll(keepingCapacity: true)
            try deflater.deflate(probeInput, appendingTo: &probe)
            return worthDeflating(probe.count, of: policy.probeSize)
        }
        guard deflate else { return try stored(job) }

        let chunk = try read(job.count, at: job.offset, of: source)
        let crc = CRC32.update(0, chunk)
        var bytes = arrays.take()
        try deflater.deflate(chunk, appendingTo: &bytes)
        if !job.isLast {
            let opener = try self.opener ?? DeflateStreamOpener()
            self.opener = opener
            try opener.open(&bytes)
        }
        return ChunkOutput(crc32: crc, length: job.count, method: .deflated, bytes: bytes)
    }

    private func stored(_ job: ChunkJob) throws -> ChunkOutput {
        // Read into the compressor's own buffer (a chunk is at most `chunkSize`) and copied out whole: an array grown
        // element by element first costs a loop per byte wherever the standard library's generic paths are not
        // specialised.
        let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<job.count])
        if job.count > 0 { try job.source.read(at: job.offset, into: chunk) }
        var bytes = arrays.take()
        bytes.append(contentsOf: UnsafeRawBufferPointer(chunk))
        let crc = CRC32.update(0, UnsafeRawBufferPointer(chunk))
        return ChunkOutput(crc32: crc, length: job.count, method: .stored, bytes: bytes)
    }

    /// Reads `count` bytes (at most `chunkSize`) at `offset` of `source` into the compressor's input buffer.
    private func read(_ count: Int, at offset: Int64, of source: EntrySource) throws(PackError) -> UnsafeRawBufferPointer {
        let region = UnsafeMutableRawBufferPointer(rebasing: input[0..<count])
        try source.read(at: offset, into: region)
        return UnsafeRawBufferPointer(region)
    }

    private func worthDeflating(_ compressed: Int, of original: Int) -> Bool {
        Double(compressed) <= policy.storeRatio * Double(original)
    }
}
