/// A zip archive's central directory: where it is (from the end-of-central-directory record, ZIP64's
/// when the classic one overflows) and what it says of each entry.
///
/// APPNOTE.TXT 6.3 §4.3.14-4.3.16 (the end records), §4.3.12 (central headers), §4.5.3 (the ZIP64
/// extended information extra field). Split archives and prepended data are refused: the central
/// directory must end where the end records begin.
struct ZipDirectory {
    /// One central directory header, with ZIP64 values already applied.
    struct Record {
        var name: [UInt8]
        var versionMadeBy: UInt16
        var flags: UInt16
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
        var externalAttributes: UInt32
    }

    /// Where the central directory starts; entry data must end before it.
    let offset: UInt64
    /// The entries in central-directory order.
    let records: [Record]

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let zip64EndSignature: UInt32 = 0x0606_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50

    /// Reads the end records and the central directory of `file`.
    init(file: InputFile, limits: ArchiveLimits) throws(ArchiveError) {
        let (endOffset, end) = try Self.findEnd(file)
        var reader = LittleEndian(end, at: 4)
        let disk = reader.u16()
        let directoryDisk = reader.u16()
        let entriesOnDisk = reader.u16()
        var entryCount = UInt64(reader.u16())
        var directorySize = UInt64(reader.u32())
        var directoryOffset = UInt64(reader.u32())
        var directoryEnd = UInt64(endOffset)
        guard disk == 0, directoryDisk == 0, UInt64(entriesOnDisk) == entryCount else {
            throw ArchiveError(.unsupported, "split (multi-disk) zip archives are not read")
        }
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            let locatorOffset = endOffset - 20
            guard locatorOffset >= 0 else { throw ArchiveError(.malformed, "the ZIP64 end-of-directory locator is missing") }
            var locator = LittleEndian(try file.bytes(at: locatorOffset, count: 20, what: "the ZIP64 locator"))
            guard locator.u32() == Self.zip64LocatorSignature else {
                throw ArchiveError(.malformed, "the ZIP64 end-of-directory locator is missing")
            }
            _ = locator.u32()
            let zip64EndOffset = locator.u64()
            guard zip64EndOffset < UInt64(locatorOffset) else {
                throw ArchiveError(.malformed, "the ZIP64 end-of-directory record is out of place")
            }
            var zip64 = LittleEndian(
                try file.bytes(at: Int64(zip64EndOffset), count: 56, what: "the ZIP64 end-of-directory record"))
            guard zip64.u32() == Self.zip64EndSignature else {
                throw ArchiveError(.malformed, "the ZIP64 end-of-directory record has a bad signature")
            }
            _ = zip64.u64()  // record size
            _ = zip64.u16()  // version made by
            _ = zip64.u16()  // version needed
            guard zip64.u32() == 0, zip64.u32() == 0 else {
                throw ArchiveError(.unsupported, "split (multi-disk) zip archives are not read")
            }
            let onDisk = zip64.u64()
            entryCount = zip64.u64()
            directorySize = zip64.u64()
            directoryOffset = zip64.u64()
            directoryEnd = zip64EndOffset
            guard onDisk == entryCount else { throw ArchiveError(.unsupported, "split (multi-disk) zip archives are not read") }
        }
        guard entryCount <= UInt64(limits.maxEntries) else {
            throw ArchiveError(.tooManyEntries, "the archive declares \(entryCount) entries, more than \(limits.maxEntries)")
        }
        let (sum, overflow) = directoryOffset.addingReportingOverflow(directorySize)
        guard !overflow, sum == directoryEnd else {
            throw ArchiveError(
                .malformed, "the central directory does not end where the end record begins (data prepended, or a damaged archive)")
        }
        offset = directoryOffset
        records = try Self.readRecords(file, at: directoryOffset, count: Int(entryCount), end: directoryEnd, limits: limits)
    }

    /// The classic end record, found from the end of the file: its comment must reach exactly to the end.
    private static func findEnd(_ file: InputFile) throws(ArchiveError) -> (Int64, [UInt8]) {
        guard file.size >= 22 else { throw ArchiveError(.truncated, "the zip archive is shorter than its end record") }
        let window = Int(min(file.size, 22 + 0xFFFF))
        let start = file.size - Int64(window)
        let tail = try file.bytes(at: start, count: window, what: "the end record")
        var index = window - 22
        while index >= 0 {
            if tail[index] == 0x50, tail[index + 1] == 0x4B, tail[index + 2] == 0x05, tail[index + 3] == 0x06 {
                let commentLength = Int(tail[index + 20]) | Int(tail[index + 21]) << 8
                if index + 22 + commentLength == window {
                    return (start + Int64(index), Array(tail[index..<(index + 22)]))
                }
            }
            index -= 1
        }
        throw ArchiveError(.truncated, "no end-of-central-directory record: the zip archive is truncated or damaged")
    }

    private static func readRecords(
        _ file: InputFile, at start: UInt64, count: Int, end: UInt64, limits: ArchiveLimits
    ) throws(ArchiveError) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(count)
        var position = Int64(start)
        for _ in 0..<count {
            var header = LittleEndian(try file.bytes(at: position, count: 46, what: "the central directory"))
            guard header.u32() == centralSignature else {
                throw ArchiveError(.malformed, "a central directory header has a bad signature")
            }
            let versionMadeBy = header.u16()
            _ = header.u16()
            let flags = header.u16()
            let method = header.u16()
            _ = header.u32()  // time and date
            let crc = header.u32()
            let compressed = header.u32()
            let uncompressed = header.u32()
            let nameLength = Int(header.u16())
            let extraLength = Int(header.u16())
            let commentLength = Int(header.u16())
            _ = header.u16()  // disk
            _ = header.u16()  // internal attributes
            let external = header.u32()
            let localOffset = header.u32()
            guard nameLength <= limits.maxPathBytes else {
                let prefix = try file.bytes(at: position + 46, count: min(nameLength, 256), what: "an entry name")
                throw ArchiveError(.badName, entry: EntryPath.display(prefix), "the name is longer than \(limits.maxPathBytes) bytes")
            }
            let name = try file.bytes(at: position + 46, count: nameLength, what: "an entry name")
            let extra = try file.bytes(at: position + 46 + Int64(nameLength), count: extraLength, what: "an extra field")
            var record = Record(
                name: name, versionMadeBy: versionMadeBy, flags: flags, method: method, crc: crc,
                compressedSize: UInt64(compressed), uncompressedSize: UInt64(uncompressed),
                localHeaderOffset: UInt64(localOffset), externalAttributes: external)
            try applyZip64(extra, to: &record)
            records.append(record)
            position += 46 + Int64(nameLength + extraLength + commentLength)
            guard UInt64(position) <= end else { throw ArchiveError(.malformed, "the central directory overruns its size") }
        }
        return records
    }

    /// APPNOTE §4.5.3: the 64-bit values are present, in this order, only for the fields set to all ones.
    private static func applyZip64(_ extra: [UInt8], to record: inout Record) throws(ArchiveError) {
        var reader = LittleEndian(extra)
        while reader.remaining >= 4 {
            let id = reader.u16()
            let size = Int(reader.u16())
            guard size <= reader.remaining else {
                throw ArchiveError(.malformed, entry: EntryPath.display(record.name), "an extra field overruns its header")
            }
            guard id == 0x0001 else {
                reader.offset += size
                continue
            }
            var field = LittleEndian(reader.take(size))
            func next() throws(ArchiveError) -> UInt64 {
                guard field.remaining >= 8 else {
                    throw ArchiveError(.malformed, entry: EntryPath.display(record.name), "the ZIP64 extra field is too short")
                }
                return field.u64()
            }
            if record.uncompressedSize == 0xFFFF_FFFF { record.uncompressedSize = try next() }
            if record.compressedSize == 0xFFFF_FFFF { record.compressedSize = try next() }
            if record.localHeaderOffset == 0xFFFF_FFFF { record.localHeaderOffset = try next() }
        }
    }
}
