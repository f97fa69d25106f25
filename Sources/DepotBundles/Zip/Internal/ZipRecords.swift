/// One entry of the archive as the central directory describes it.
struct ZipEntryRecord: Equatable {
    var name: [UInt8]
    var method: ZipMethod
    var crc32: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    var localHeaderOffset: UInt64
}

/// Compression methods (APPNOTE 4.4.5).
enum ZipMethod: UInt16 {
    case stored = 0
    case deflated = 8
}

/// Encoders for the ZIP records Depot writes (PKWARE APPNOTE 6.3.x). Everything that could vary between
/// machines is fixed: times, attributes, versions, no comments, no extra fields except ZIP64's.
enum ZipRecords {
    /// 0xFFFFFFFF and 0xFFFF mark a field whose real value is in a ZIP64 record (APPNOTE 4.4.8, 4.5.3).
    static let max32: UInt64 = 0xFFFF_FFFF
    static let max16 = 0xFFFF

    /// Bit 11: names are UTF-8 (APPNOTE 4.4.4, appendix D).
    static let flags: UInt16 = 0x0800
    /// MS-DOS time 00:00:00 and date 1980-01-01, the earliest a ZIP can say.
    static let dosTime: UInt16 = 0
    static let dosDate: UInt16 = (0 << 9) | (1 << 5) | 1
    /// Upper byte 3: Unix, so the external attributes carry a mode; lower byte: APPNOTE 4.5.
    static let versionMadeBy: UInt16 = (3 << 8) | 45
    /// Regular file, rw-r--r--, in the Unix half of the external attributes.
    static let externalAttributes: UInt32 = 0o100644 << 16

    /// Whether an entry of this size needs a ZIP64 extra field in its local header. Compressed data is
    /// never larger than the original (such an entry is stored), so the original size decides.
    static func localNeedsZip64(uncompressedSize: UInt64) -> Bool {
        uncompressedSize >= max32
    }

    static func localHeaderLength(nameLength: Int, zip64: Bool) -> Int {
        30 + nameLength + (zip64 ? 20 : 0)
    }

    /// The local file header (APPNOTE 4.3.7), with the ZIP64 extra field (4.5.3) carrying both sizes
    /// when `zip64` is set.
    static func localHeader(
        name: [UInt8], method: ZipMethod, crc32: UInt32, compressedSize: UInt64, uncompressedSize: UInt64,
        zip64: Bool
    ) -> [UInt8] {
        var out = ByteWriter(capacity: localHeaderLength(nameLength: name.count, zip64: zip64))
        out.u32(0x0403_4B50)
        out.u16(zip64 ? 45 : 20)
        out.u16(flags)
        out.u16(method.rawValue)
        out.u16(dosTime)
        out.u16(dosDate)
        out.u32(crc32)
        out.u32(zip64 ? UInt32(max32) : UInt32(compressedSize))
        out.u32(zip64 ? UInt32(max32) : UInt32(uncompressedSize))
        out.u16(UInt16(name.count))
        out.u16(zip64 ? 20 : 0)
        out.bytes(name)
        if zip64 {
            out.u16(0x0001)
            out.u16(16)
            out.u64(uncompressedSize)
            out.u64(compressedSize)
        }
        return out.buffer
    }

    /// The central directory header (APPNOTE 4.3.12). Fields that overflow 32 bits are 0xFFFFFFFF and
    /// appear, in APPNOTE order, in a ZIP64 extra field.
    static func centralHeader(_ entry: ZipEntryRecord) -> [UInt8] {
        var extra = ByteWriter(capacity: 28)
        let bigUncompressed = entry.uncompressedSize >= max32
        let bigCompressed = entry.compressedSize >= max32
        let bigOffset = entry.localHeaderOffset >= max32
        if bigUncompressed || bigCompressed || bigOffset {
            let count = (bigUncompressed ? 1 : 0) + (bigCompressed ? 1 : 0) + (bigOffset ? 1 : 0)
            extra.u16(0x0001)
            extra.u16(UInt16(8 * count))
            if bigUncompressed { extra.u64(entry.uncompressedSize) }
            if bigCompressed { extra.u64(entry.compressedSize) }
            if bigOffset { extra.u64(entry.localHeaderOffset) }
        }
        let zip64 = !extra.buffer.isEmpty || localNeedsZip64(uncompressedSize: entry.uncompressedSize)
        var out = ByteWriter(capacity: 46 + entry.name.count + extra.buffer.count)
        out.u32(0x0201_4B50)
        out.u16(versionMadeBy)
        out.u16(zip64 ? 45 : 20)
        out.u16(flags)
        out.u16(entry.method.rawValue)
        out.u16(dosTime)
        out.u16(dosDate)
        out.u32(entry.crc32)
        out.u32(UInt32(min(entry.compressedSize, max32)))
        out.u32(UInt32(min(entry.uncompressedSize, max32)))
        out.u16(UInt16(entry.name.count))
        out.u16(UInt16(extra.buffer.count))
        out.u16(0)  // comment length
        out.u16(0)  // disk number start
        out.u16(0)  // internal attributes
        out.u32(externalAttributes)
        out.u32(UInt32(min(entry.localHeaderOffset, max32)))
        out.bytes(entry.name)
        out.bytes(extra.buffer)
        return out.buffer
    }

    /// The end of the archive: the end of central directory record (APPNOTE 4.3.16), preceded by the
    /// ZIP64 end of central directory record and locator (4.3.14, 4.3.15) when a count or offset overflows.
    static func end(entryCount: Int, centralDirectoryOffset: UInt64, centralDirectorySize: UInt64) -> [UInt8] {
        let zip64 = entryCount >= max16 || centralDirectoryOffset >= max32 || centralDirectorySize >= max32
        var out = ByteWriter(capacity: 98)
        if zip64 {
            let recordOffset = centralDirectoryOffset + centralDirectorySize
            out.u32(0x0606_4B50)
            out.u64(44)  // size of the rest of this record
            out.u16(versionMadeBy)
            out.u16(45)
            out.u32(0)  // this disk
            out.u32(0)  // disk holding the central directory
            out.u64(UInt64(entryCount))
            out.u64(UInt64(entryCount))
            out.u64(centralDirectorySize)
            out.u64(centralDirectoryOffset)
            out.u32(0x0706_4B50)
            out.u32(0)  // disk holding the ZIP64 end record
            out.u64(recordOffset)
            out.u32(1)  // total disks
        }
        out.u32(0x0605_4B50)
        out.u16(0)
        out.u16(0)
        out.u16(UInt16(min(entryCount, max16)))
        out.u16(UInt16(min(entryCount, max16)))
        out.u32(UInt32(min(centralDirectorySize, max32)))
        out.u32(UInt32(min(centralDirectoryOffset, max32)))
        out.u16(0)  // comment length
        return out.buffer
    }
}

/// Little-endian field encoder.
struct ByteWriter {
    var buffer: [UInt8] = []

    init(capacity: Int) { buffer.reserveCapacity(capacity) }

    mutating func u16(_ value: UInt16) {
        buffer.append(UInt8(truncatingIfNeeded: value))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { buffer.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func bytes(_ value: [UInt8]) { buffer.append(contentsOf: value) }
}
