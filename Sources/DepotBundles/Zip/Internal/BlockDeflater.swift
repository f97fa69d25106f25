import CLibdeflate

/// Raw deflate (RFC 1951) of a whole buffer at once, over libdeflate: one compressor per worker thread,
/// reused for every chunk it compresses.
///
/// libdeflate compresses a buffer in one call, faster than zlib at the same size, but always ends the stream
/// (the last block carries the final bit) and takes no preset dictionary. A chunk that is not its entry's last
/// is made continuable afterwards by `DeflateStreamOpener`.
final class BlockDeflater {
    /// libdeflate's levels run from 1 to 12; a bundle's level (zlib's scale, 1 to 9) plus one, so that the
    /// default of 6 deflates text and tables at least as small as zlib's 6 (`bench/bundling.sh` compares).
    static func libdeflateLevel(forBundleLevel level: Int) -> Int32 { Int32(min(max(level, 1), 9) + 1) }

    /// libdeflate's version: part of the build cache's fingerprint, since another version may deflate differently.
    static let versionString = LIBDEFLATE_VERSION_STRING

    private let compressor: OpaquePointer
    /// Room for the worst case of `maximumInput` bytes.
    private let output: UnsafeMutableRawBufferPointer
    /// The largest input `deflate` takes.
    let maximumInput: Int

    /// A compressor at the bundle level `level` (1...9) for inputs of up to `maximumInput` bytes.
    init(level: Int, maximumInput: Int) throws(BundleStoreError) {
        guard let compressor = libdeflate_alloc_compressor(Self.libdeflateLevel(forBundleLevel: level)) else {
            throw BundleStoreError(.io, "libdeflate could not allocate a compressor (out of memory)")
        }
        self.compressor = compressor
        self.maximumInput = maximumInput
        output = .allocate(byteCount: libdeflate_deflate_compress_bound(compressor, maximumInput), alignment: 16)
    }

    deinit {
        libdeflate_free_compressor(compressor)
        output.deallocate()
    }

    /// Deflates `input` (at most `maximumInput` bytes) into one complete raw deflate stream appended to `out`.
    func deflate(_ input: UnsafeRawBufferPointer, appendingTo out: inout [UInt8]) throws(BundleStoreError) {
        precondition(input.count <= maximumInput, "a deflate input larger than the compressor was made for")
        let produced = libdeflate_deflate_compress(
            compressor, input.baseAddress, input.count, output.baseAddress, output.count
        )
        // The output buffer holds the bound libdeflate gives for this input size, so it always fits.
        guard produced > 0 else { throw BundleStoreError(.io, "libdeflate produced no output for \(input.count) bytes") }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: output[0..<produced]))
    }
}
