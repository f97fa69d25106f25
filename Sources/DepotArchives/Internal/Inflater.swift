import CZlib

/// A zlib inflate stream: raw deflate (zip entries) or gzip-wrapped (tar.gz).
///
/// Callers hand it input and output space; it reports how much of each it used and whether the stream
/// ended, so every byte produced can be counted and judged before more is made.
final class Inflater {
    /// The wrapper around the deflate data.
    enum Wrapping {
        /// No header or trailer (RFC 1951), as in zip.
        case raw
        /// A gzip member (RFC 1952), whose trailer CRC and length zlib checks.
        case gzip

        var windowBits: Int32 {
            switch self {
            case .raw: -15
            case .gzip: 15 + 16
            }
        }
    }

    /// What one step did.
    struct Step {
        /// Input bytes consumed.
        var consumed: Int
        /// Output bytes produced.
        var produced: Int
        /// Whether the deflate stream (or gzip member) ended.
        var ended: Bool
    }

    private let stream: UnsafeMutablePointer<z_stream>

    init(_ wrapping: Wrapping) throws(ArchiveError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let result = inflateInit2_(stream, wrapping.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ArchiveError(.io, "zlib could not start inflating (\(result))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new stream with the same settings (the next gzip member).
    func reset() {
        inflateReset(stream)
    }

    /// Inflates from `input` into `output` until one of them is used up or the stream ends.
    func step(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, entry: String?
    ) throws(ArchiveError) -> Step {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let result = inflate(stream, Z_NO_FLUSH)
        let step = Step(
            consumed: input.count - Int(stream.pointee.avail_in), produced: output.count - Int(stream.pointee.avail_out),
            ended: result == Z_STREAM_END)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch result {
        case Z_OK, Z_STREAM_END:
            return step
        case Z_BUF_ERROR:
            // No progress possible: only an empty input or output does this, which callers never pass.
            return step
        case Z_MEM_ERROR:
            throw ArchiveError(.io, entry: entry, "zlib ran out of memory")
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "error \(result)"
            throw ArchiveError(.malformed, entry: entry, "the compressed data is corrupt (\(reason))")
        }
    }
}

/// CRC-32 (ISO 3309, as zip uses), updated chunk by chunk through zlib.
struct CRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = UInt32(crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }
}
