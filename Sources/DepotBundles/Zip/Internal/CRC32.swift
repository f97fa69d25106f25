import CZlib

/// CRC-32 (ISO-HDLC, as ZIP uses), from zlib.
enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `crc` (0 to start).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return UInt32(CZlib.crc32(uLong(crc), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    /// The CRC-32 of `A` followed by `B`, from the CRC-32 of `A`, that of `B`, and `B`'s length.
    static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int64) -> UInt32 {
        UInt32(CZlib.crc32_combine(uLong(first), uLong(second), .init(secondLength)))
    }
}
