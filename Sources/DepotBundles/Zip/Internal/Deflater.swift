import CZlib

/// A raw deflate stream (RFC 1951, no zlib or gzip wrapper) over zlib, reused across entries with
/// `deflateReset` so a pack of many small files does not pay for a new window each time.
final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// `level` is zlib's 1...9.
    init(level: Int32) throws(BundleStoreError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let result = deflateInit2_(
            stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
        )
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw BundleStoreError(.io, "zlib deflateInit2 failed (\(result))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new stream with the same settings.
    func reset() {
        deflateReset(stream)
    }

    /// How a call to `deflate` ends its input.
    enum Flush {
        /// More input follows in this stream.
        case none
        /// More input follows, but everything so far is emitted and the stream is brought to a byte
        /// boundary (an empty stored block), so another stream's output can be appended after it.
        case sync
        /// The stream ends here (the final block bit is set).
        case finish

        var zlibValue: Int32 {
            switch self {
            case .none: Z_NO_FLUSH
            case .sync: Z_SYNC_FLUSH
            case .finish: Z_FINISH
            }
        }
    }

    /// Primes the stream with the 32 KiB (or less) of data that precede its input, so matches can reach
    /// back into it. Only right after `init` or `reset`, before any `deflate`.
    func setDictionary(_ dictionary: UnsafeRawBufferPointer) {
        guard let base = dictionary.baseAddress, dictionary.count > 0 else { return }
        let result = deflateSetDictionary(stream, base.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
        precondition(result == Z_OK, "zlib refused a dictionary (\(result))")
    }

    /// Compresses `input` and ends it as `flush` says, handing each piece of output to `sink`.
    func deflate<E: Error>(
        _ input: UnsafeRawBufferPointer, flush: Flush, scratch: UnsafeMutableRawBufferPointer,
        sink: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        )
        stream.pointee.avail_in = uInt(input.count)
        // zlib's zpipe loop: run until deflate leaves room in the output buffer (for every flush mode,
        // a call that fills the output must be repeated with the same flush).
        repeat {
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let result = CZlib.deflate(stream, flush.zlibValue)
            precondition(result != Z_STREAM_ERROR, "zlib stream state is inconsistent")
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced])) }
        } while stream.pointee.avail_out == 0
        stream.pointee.next_in = nil
    }

    /// zlib's version string, part of the build cache's fingerprint: another zlib may deflate differently.
    static var zlibVersionString: String { String(cString: zlibVersion()) }

    /// CRC-32 (ISO-HDLC, as ZIP uses) of `bytes`, continuing from `crc`.
    static func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return UInt32(CZlib.crc32(uLong(crc), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    /// The CRC-32 of `A` followed by `B`, from the CRC-32 of `A`, that of `B`, and `B`'s length.
    static func crc32Combine(_ first: UInt32, _ second: UInt32, secondLength: Int64) -> UInt32 {
        UInt32(CZlib.crc32_combine(uLong(first), uLong(second), .init(secondLength)))
    }
}
