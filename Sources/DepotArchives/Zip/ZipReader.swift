/// Reads a zip archive entry by entry into an `EntrySink`: stored and deflated entries, ZIP64 sizes,
/// entries written with data descriptors (sizes and CRC are taken from the central directory).
///
/// Each entry's local header must agree with its central one, entries may not overlap (the
/// overlapping-entry bomb) and must end before the central directory; each entry is inflated in 64 KiB
/// steps, its CRC-32, its size and its compression ratio judged as the bytes come.
struct ZipReader {
    private let file: InputFile
    private let limits: ArchiveLimits

    init(file: InputFile, limits: ArchiveLimits) {
        self.file = file
        self.limits = limits
    }

    private static let localSignature: UInt32 = 0x0403_4B50

    /// Reads every entry into `sink`, in the order their data is stored.
    func read(into sink: EntrySink) throws(ArchiveError) {
        let directory = try ZipDirectory(file: file, limits: limits)
        let records = directory.records.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        var previousEnd: UInt64 = 0
        var buffers = Buffers()
        // Many entries that each stay under the ratio limit are judged together, as one gzip stream is.
        var archive = ExpansionTally(of: "the archive")
        for record in records {
            let shown = EntryPath.display(record.name)
            guard record.localHeaderOffset >= previousEnd else {
                throw ArchiveError(.malformed, entry: shown, "the entry overlaps the one before it")
            }
            let kind = try Self.kind(of: record, shown: shown)
            let dataStart = try localDataStart(record, shown: shown)
            let (dataEnd, overflow) = dataStart.addingReportingOverflow(record.compressedSize)
            guard !overflow, dataEnd <= directory.offset else {
                throw ArchiveError(.truncated, entry: shown, "the entry's data runs past the central directory")
            }
            previousEnd = dataEnd
            switch kind {
            case .directory:
                guard record.uncompressedSize == 0 else {
                    throw ArchiveError(.malformed, entry: shown, "a directory entry holds data")
                }
                try sink.directory(record.name)
            case .file:
                guard record.flags & 0x0001 == 0, record.flags & 0x0040 == 0, record.flags & 0x2000 == 0 else {
                    throw ArchiveError(.unsupported, entry: shown, "the entry is encrypted")
                }
                try sink.beginFile(record.name, declaredSize: Int64(clamping: record.uncompressedSize))
                try copyData(record, from: dataStart, into: sink, buffers: &buffers, archive: &archive, shown: shown)
                try sink.endFile()
            }
        }
    }

    /// File or directory, from the name and, for Unix-made entries, the file type in the external attributes.
    static func kind(of record: ZipDirectory.Record, shown: String) throws(ArchiveError) -> ArchiveEntry.Kind {
        let host = record.versionMadeBy >> 8
        let mode = (host == 3 || host == 19) ? (record.externalAttributes >> 16) & 0o170000 : 0
        switch mode {
        case 0o120000: throw ArchiveError(.link, entry: shown, "the entry is a symbolic link")
        case 0o040000: return .directory
        case 0, 0o100000: return record.name.last == 0x2F ? .directory : .file
        default: throw ArchiveError(.specialFile, entry: shown, "the entry is a device, FIFO or socket")
        }
    }

    /// Checks the local header against the central one; returns where the entry's data starts.
    private func localDataStart(_ record: ZipDirectory.Record, shown: String) throws(ArchiveError) -> UInt64 {
        guard record.localHeaderOffset < UInt64(file.size) else {
            throw ArchiveError(.truncated, entry: shown, "the entry's local header is past the end of the archive")
        }
        let offset = Int64(record.localHeaderOffset)
        var header = LittleEndian(try file.bytes(at: offset, count: 30, what: "a local header", entry: shown))
        guard header.u32() == Self.localSignature else {
            throw ArchiveError(.malformed, entry: shown, "the local header has a bad signature")
        }
        _ = header.u16()
        _ = header.u16()
        let method = header.u16()
        header.offset += 16
        let nameLength = Int(header.u16())
        let extraLength = Int(header.u16())
        let name = try file.bytes(at: offset + 30, count: nameLength, what: "a local header", entry: shown)
        guard name == record.name, method == record.method else {
            throw ArchiveError(.malformed, entry: shown, "the local header disagrees with the central directory")
        }
        return record.localHeaderOffset + 30 + UInt64(nameLength) + UInt64(extraLength)
    }

    /// Reused input and output space: memory stays the same whatever the archive's size.
    struct Buffers {
        var input = [UInt8](repeating: 0, count: 64 << 10)
        var output = [UInt8](repeating: 0, count: 64 << 10)
    }

    private func copyData(
        _ record: ZipDirectory.Record, from start: UInt64, into sink: EntrySink, buffers: inout Buffers,
        archive: inout ExpansionTally, shown: String
    ) throws(ArchiveError) {
        var crc = CRC32()
        var produced: UInt64 = 0
        switch record.method {
        case 0:
            guard record.compressedSize == record.uncompressedSize else {
                throw ArchiveError(.malformed, entry: shown, "a stored entry's sizes differ")
            }
            var position = start
            let end = start + record.compressedSize
            while position < end {
                let count = Int(min(UInt64(buffers.input.count), end - position))
                try buffers.input.withMutableBytes { raw throws(ArchiveError) in
                    let chunk = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                    guard try file.read(at: Int64(position), into: chunk) == count else {
                        throw ArchiveError(.truncated, entry: shown, "the archive ends inside the entry's data")
                    }
                    crc.update(UnsafeRawBufferPointer(chunk))
                    try sink.write(UnsafeRawBufferPointer(chunk))
                }
                position += UInt64(count)
                try archive.add(consumed: count, produced: count, limits: limits, entry: shown)
            }
            produced = record.compressedSize
        case 8:
            produced = try inflate(
                record, from: start, into: sink, crc: &crc, buffers: &buffers, archive: &archive, shown: shown)
        default:
            throw ArchiveError(.unsupported, entry: shown, "compression method \(record.method) is not read (only stored and deflate)")
        }
        guard produced == record.uncompressedSize else {
            throw ArchiveError(
                .checksumMismatch, entry: shown, "the entry expands to \(produced) bytes, not the \(record.uncompressedSize) it declares")
        }
        guard crc.value == record.crc else {
            throw ArchiveError(.checksumMismatch, entry: shown, "the entry's CRC-32 does not match its data")
        }
    }

    private func inflate(
        _ record: ZipDirectory.Record, from start: UInt64, into sink: EntrySink, crc: inout CRC32, buffers: inout Buffers,
        archive: inout ExpansionTally, shown: String
    ) throws(ArchiveError) -> UInt64 {
        var entry = ExpansionTally(of: "the entry")
        let inflater = try Inflater(.raw)
        let end = start + record.compressedSize
        var position = start
        var produced: UInt64 = 0
        var ended = false
        var pendingStart = 0
        var pendingEnd = 0
        while !ended {
            if pendingStart == pendingEnd {
                guard position < end else {
                    throw ArchiveError(.malformed, entry: shown, "the compressed data ends before its deflate stream does")
                }
                let count = Int(min(UInt64(buffers.input.count), end - position))
                let read = try buffers.input.withMutableBytes { raw throws(ArchiveError) in
                    try file.read(at: Int64(position), into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
                }
                guard read == count else { throw ArchiveError(.truncated, entry: shown, "the archive ends inside the entry's data") }
                position += UInt64(count)
                pendingStart = 0
                pendingEnd = count
            }
            let step = try buffers.input.withBytes { input throws(ArchiveError) in
                try buffers.output.withMutableBytes { output throws(ArchiveError) in
                    let step = try inflater.step(
                        UnsafeRawBufferPointer(rebasing: input[pendingStart..<pendingEnd]), into: output, entry: shown)
                    let made = UnsafeRawBufferPointer(rebasing: output[0..<step.produced])
                    crc.update(made)
                    try sink.write(made)
                    return step
                }
            }
            pendingStart += step.consumed
            produced += UInt64(step.produced)
            ended = step.ended
            if produced > record.uncompressedSize {
                throw ArchiveError(
                    .checksumMismatch, entry: shown, "the entry expands past the \(record.uncompressedSize) bytes it declares")
            }
            try entry.add(consumed: step.consumed, produced: step.produced, limits: limits, entry: shown)
            try archive.add(consumed: step.consumed, produced: step.produced, limits: limits, entry: shown)
            if step.consumed == 0 && step.produced == 0 && !ended {
                throw ArchiveError(.malformed, entry: shown, "the compressed data makes no progress")
            }
        }
        guard pendingStart == pendingEnd, position == end else {
            throw ArchiveError(.malformed, entry: shown, "bytes follow the end of the entry's deflate stream")
        }
        return produced
    }
}
