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

/// Compresses chunks of entries, one worker thread each (the zlib stream and buffers are not shared).
///
/// An entry larger than one chunk is cut into `chunkSize` pieces deflated independently, the way pigz
/// does: each piece's stream is primed with the 32 KiB that precede it (a preset dictionary, so little
/// compression is lost), and ends with a sync flush (an empty stored block, byte-aligned) except the last,
/// which ends the deflate stream. Laid end to end the pieces are one valid deflate stream. The bytes are
/// a function of the entry's bytes, the level and the policy only: chunk boundaries are fixed offsets,
/// the dictionary is input, and no chunk depends on another's output, so neither the thread count nor
/// timing can change them. An entry of one chunk (up to 1 MiB) is deflated exactly as a single stream,
/// as format 1 did.
final class ChunkCompressor {
    /// The size of the pieces entries are cut into. Part of the format: changing it changes the bytes.
    static let chunkSize = 1 << 20
    /// The deflate window: how much preceding input primes a chunk's stream.
    static let dictionarySize = 32 << 10

    private let level: Int
    private let policy: CompressionPolicy
    private let arrays: ByteArrayPool
    private var deflater: Deflater?
    /// The probe's output when it is not the entry's.
    private var probe: [UInt8] = []
    /// `dictionarySize` bytes of preceding input, then up to `chunkSize` bytes of the chunk.
    private let input: UnsafeMutableRawBufferPointer
    private let scratch: UnsafeMutableRawBufferPointer

    /// A compressor at zlib `level` (0 stores everything) taking output arrays from `arrays`.
    init(level: Int, policy: CompressionPolicy, arrays: ByteArrayPool) {
        self.level = level
        self.policy = policy
        self.arrays = arrays
        input = .allocate(byteCount: Self.dictionarySize + Self.chunkSize, alignment: 16)
        scratch = .allocate(byteCount: 256 << 10, alignment: 16)
    }

    deinit {
        input.deallocate()
        scratch.deallocate()
    }

    /// The chunk's bytes as they go into the archive.
    func compress(_ job: ChunkJob) -> Result<ChunkOutput, any Error> {
        Result { try run(job) }
    }

    private func run(_ job: ChunkJob) throws -> ChunkOutput {
        let source = job.source
        guard level > 0, source.size > 0 else { return try stored(job) }
        let deflater = try self.deflater ?? Deflater(level: Int32(level))
        self.deflater = deflater

        if source.size <= Int64(policy.probeSize) {
            // The probe is the whole entry: its output is kept when it is worth it.
            let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<job.count])
            try source.read(at: 0, into: chunk)
            var bytes = arrays.take()
            deflateWhole(UnsafeRawBufferPointer(chunk), into: &bytes, with: deflater)
            let crc = Deflater.crc32(0, UnsafeRawBufferPointer(chunk))
            if worthDeflating(bytes.count, of: job.count), bytes.count < job.count {
                return ChunkOutput(crc32: crc, length: job.count, method: .deflated, bytes: bytes)
            }
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: UnsafeRawBufferPointer(chunk))
            return ChunkOutput(crc32: crc, length: job.count, method: .stored, bytes: bytes)
        }

        let deflate = try source.shouldDeflate { () throws(PackError) -> Bool in
            let probeInput = UnsafeMutableRawBufferPointer(rebasing: input[0..<policy.probeSize])
            try source.read(at: 0, into: probeInput)
            deflateWhole(UnsafeRawBufferPointer(probeInput), into: &probe, with: deflater)
            return worthDeflating(probe.count, of: policy.probeSize)
        }
        guard deflate else { return try stored(job) }

        let dictionaryCount = Int(min(job.offset, Int64(Self.dictionarySize)))
        let region = UnsafeMutableRawBufferPointer(rebasing: input[0..<dictionaryCount + job.count])
        try source.read(at: job.offset - Int64(dictionaryCount), into: region)
        let chunk = UnsafeRawBufferPointer(rebasing: region[dictionaryCount...])
        let crc = Deflater.crc32(0, chunk)
        deflater.reset()
        deflater.setDictionary(UnsafeRawBufferPointer(rebasing: region[0..<dictionaryCount]))
        var bytes = arrays.take()
        deflater.deflate(chunk, flush: job.isLast ? .finish : .sync, scratch: scratch) {
            bytes.append(contentsOf: $0)
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
        let crc = Deflater.crc32(0, UnsafeRawBufferPointer(chunk))
        return ChunkOutput(crc32: crc, length: job.count, method: .stored, bytes: bytes)
    }

    private func deflateWhole(_ input: UnsafeRawBufferPointer, into out: inout [UInt8], with deflater: Deflater) {
        out.removeAll(keepingCapacity: true)
        deflater.reset()
        deflater.deflate(input, flush: .finish, scratch: scratch) { out.append(contentsOf: $0) }
    }

    private func worthDeflating(_ compressed: Int, of original: Int) -> Bool {
        Double(compressed) <= policy.storeRatio * Double(original)
    }
}
