import Testing

@testable import DepotBundles

@Suite struct ZipRecordsTests {
    private func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }
    private func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    @Test func localHeaderIsFixedAndSmall() {
        let header = ZipRecords.localHeader(
            name: Array("Contents/a.txt".utf8), method: .deflated, crc32: 0xDEAD_BEEF, compressedSize: 10,
            uncompressedSize: 20, zip64: false
        )
        #expect(header.count == 30 + 14)
        #expect(u32(header, 0) == 0x0403_4B50)
        #expect(u16(header, 4) == 20)
        #expect(u16(header, 6) == 0x0800)  // UTF-8 names, no data descriptor
        #expect(u16(header, 8) == 8)
        #expect(u16(header, 10) == 0)  // 00:00:00
        #expect(u16(header, 12) == 0x0021)  // 1980-01-01
        #expect(u32(header, 14) == 0xDEAD_BEEF)
        #expect(u32(header, 18) == 10)
        #expect(u32(header, 22) == 20)
        #expect(u16(header, 28) == 0)  // no extra field
    }

    @Test func localHeaderCarriesZip64Sizes() {
        let size: UInt64 = 5 << 30
        let header = ZipRecords.localHeader(
            name: Array("Contents/huge".utf8), method: .stored, crc32: 1, compressedSize: size,
            uncompressedSize: size, zip64: true
        )
        #expect(ZipRecords.localNeedsZip64(uncompressedSize: size))
        #expect(!ZipRecords.localNeedsZip64(uncompressedSize: 0xFFFF_FFFE))
        #expect(ZipRecords.localNeedsZip64(uncompressedSize: 0xFFFF_FFFF))
        #expect(header.count == 30 + 13 + 20)
        #expect(u16(header, 4) == 45)
        #expect(u32(header, 18) == 0xFFFF_FFFF)
        #expect(u32(header, 22) == 0xFFFF_FFFF)
        #expect(u16(header, 28) == 20)
        #expect(u16(header, 43) == 0x0001)
        #expect(u16(header, 45) == 16)
        #expect(u64(header, 47) == size)
        #expect(u64(header, 55) == size)
    }

    @Test func centralHeaderPutsOnlyOverflowingFieldsInZip64Extra() {
        let small = ZipRecords.centralHeader(
            ZipEntryRecord(
                name: Array("x".utf8), method: .stored, crc32: 7, compressedSize: 3, uncompressedSize: 3,
                localHeaderOffset: 100
            ))
        #expect(small.count == 46 + 1)
        #expect(u16(small, 4) == 0x032D)  // made by Unix, APPNOTE 4.5
        #expect(u32(small, 38) == 0o100644 << 16)
        #expect(u32(small, 42) == 100)

        let farAway = ZipRecords.centralHeader(
            ZipEntryRecord(
                name: Array("x".utf8), method: .deflated, crc32: 7, compressedSize: 3, uncompressedSize: 9,
                localHeaderOffset: 6 << 30
            ))
        #expect(farAway.count == 46 + 1 + 12)
        #expect(u16(farAway, 6) == 45)
        #expect(u32(farAway, 20) == 3)
        #expect(u32(farAway, 24) == 9)
        #expect(u32(farAway, 42) == 0xFFFF_FFFF)
        #expect(u16(farAway, 47) == 0x0001)
        #expect(u16(farAway, 49) == 8)
        #expect(u64(farAway, 51) == 6 << 30)

        let huge = ZipRecords.centralHeader(
            ZipEntryRecord(
                name: Array("x".utf8), method: .stored, crc32: 7, compressedSize: 5 << 30, uncompressedSize: 5 << 30,
                localHeaderOffset: 7 << 30
            ))
        #expect(u16(huge, 49) == 24)
        #expect(u64(huge, 51) == 5 << 30)
        #expect(u64(huge, 59) == 5 << 30)
        #expect(u64(huge, 67) == 7 << 30)
    }

    @Test func endRecordAloneWhenSmall() {
        let end = ZipRecords.end(entryCount: 3, centralDirectoryOffset: 1000, centralDirectorySize: 150)
        #expect(end.count == 22)
        #expect(u32(end, 0) == 0x0605_4B50)
        #expect(u16(end, 10) == 3)
        #expect(u32(end, 12) == 150)
        #expect(u32(end, 16) == 1000)
    }

    @Test(arguments: [
        (70_000, UInt64(1000), UInt64(150)),
        (65_535, 1000, 150),
        (3, 5 << 30, 150),
    ])
    func zip64EndRecordsWhenCountOrOffsetOverflows(count: Int, offset: UInt64, size: UInt64) {
        let end = ZipRecords.end(entryCount: count, centralDirectoryOffset: offset, centralDirectorySize: size)
        #expect(end.count == 56 + 20 + 22)
        #expect(u32(end, 0) == 0x0606_4B50)
        #expect(u64(end, 4) == 44)
        #expect(u64(end, 24) == UInt64(count))
        #expect(u64(end, 32) == UInt64(count))
        #expect(u64(end, 40) == size)
        #expect(u64(end, 48) == offset)
        #expect(u32(end, 56) == 0x0706_4B50)
        #expect(u64(end, 64) == offset + size)
        #expect(u32(end, 72) == 1)
        #expect(u32(end, 76) == 0x0605_4B50)
        #expect(u16(end, 86) == UInt16(min(count, 0xFFFF)))
        #expect(u32(end, 92) == UInt32(min(offset, 0xFFFF_FFFF)))
    }
}
