import CZlib

/// Turns a complete raw deflate stream into one that another can follow: the final bit of its last block is
/// cleared, and an empty stored block brings it to a byte boundary, the shape zlib's sync flush gives. Laid end
/// to end, such streams and one complete stream after them are a single valid deflate stream.
///
/// Where the last block starts and where it ends are bit positions inside the stream, known only by decoding
/// it: zlib's inflate with `Z_BLOCK` stops at each block boundary and reports how many bits of the last byte
/// it read are still unused. Decoding is several times faster than deflating, and it also checks that the
/// stream decodes.
final class DeflateStreamOpener {
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where the decoded bytes go; only the block boundaries matter.
    private let sink: UnsafeMutableRawBufferPointer

    /// An opener with its own inflate state, reused for every stream it opens.
    init() throws(BundleStoreError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let result = inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw BundleStoreError(.io, "zlib inflateInit2 failed (\(result))")
        }
        sink = .allocate(byteCount: 64 << 10, alignment: 16)
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        sink.deallocate()
    }

    /// Opens the complete raw deflate stream in `bytes` in place, as the type's summary says.
    func open(_ bytes: inout [UInt8]) throws(BundleStoreError) {
        let (lastBlockStart, end) = try lastBlock(of: bytes)
        guard bytes[lastBlockStart >> 3] & UInt8(1 << (lastBlockStart & 7)) != 0 else {
            throw BundleStoreError(.io, "the deflate stream's last block does not carry the final bit")
        }
        bytes[lastBlockStart >> 3] &= ~UInt8(1 << (lastBlockStart & 7))
        // Keep the bytes the last block reaches into, with its unused high bits zero; then an empty stored block:
        // three header bits (not final, type 00), padding to the byte boundary, LEN 0000 and NLEN FFFF.
        let usedBytes = (end + 7) >> 3
        bytes.removeLast(bytes.count - usedBytes)
        let bitsUsedInLastByte = end & 7
        if bitsUsedInLastByte != 0 {
            bytes[usedBytes - 1] &= UInt8((1 << bitsUsedInLastByte) - 1)
        }
        if bitsUsedInLastByte == 0 || bitsUsedInLastByte > 5 {
            bytes.append(0)  // the header's three bits start (or spill) into a byte of their own
        }
        bytes.append(contentsOf: [0x00, 0x00, 0xFF, 0xFF])
    }

    /// The bit positions where the stream's last block starts and where it ends (its end-of-block code's end).
    private func lastBlock(of bytes: [UInt8]) throws(BundleStoreError) -> (start: Int, end: Int) {
        inflateReset(stream)
        let outcome = bytes.withUnsafeBufferPointer { input -> Result<(Int, Int), BundleStoreError> in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            defer { stream.pointee.next_in = nil }
            var blockStart = 0
            while true {
                stream.pointee.next_out = sink.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(sink.count)
                let result = inflate(stream, Z_BLOCK)
                guard result == Z_OK || result == Z_BUF_ERROR else {
                    return .failure(BundleStoreError(.io, "a deflated chunk does not decode (zlib \(result))"))
                }
                let state = Int(stream.pointee.data_type)
                let position = (input.count - Int(stream.pointee.avail_in)) * 8 - (state & 63)
                let atBoundary = state & 128 != 0
                if atBoundary && state & 64 != 0 {
                    return .success((blockStart, position))  // just after the final block's end-of-block code
                }
                if atBoundary { blockStart = position }
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
                    return .failure(BundleStoreError(.io, "a deflated chunk ends before its final block"))
                }
            }
        }
        return try outcome.get()
    }
}
