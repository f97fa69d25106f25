/// Reads a tar stream (ustar, pax extended headers, GNU long names) block by block into an `EntrySink`.
///
/// Regular files and directories are read; hard and symbolic links, devices and FIFOs are refused, as
/// are GNU sparse and multi-volume entries. The stream must end with its end-of-archive marker (two
/// zero blocks, or one followed by the end of the file): a stream cut at a block boundary is truncated,
/// not a shorter archive.
struct TarReader {
    private let stream: any ByteStream
    private let limits: ArchiveLimits

    init(stream: any ByteStream, limits: ArchiveLimits) {
        self.stream = stream
        self.limits = limits
    }

    /// Reads every entry into `sink`.
    func read(into sink: EntrySink) throws(ArchiveError) {
        var block = [UInt8](repeating: 0, count: 512)
        var data = [UInt8](repeating: 0, count: 64 << 10)
        var pax: PaxRecords?
        var longName: [UInt8]?
        var longLink = false
        while true {
            guard try readBlock(&block) else {
                throw ArchiveError(.truncated, "the tar stream ends without its end-of-archive marker")
            }
            if block.allSatisfy({ $0 == 0 }) {
                // One zero block, then a second one or the end of the stream.
                if try readBlock(&block), !block.allSatisfy({ $0 == 0 }) {
                    throw ArchiveError(.malformed, "a zero block stands in the middle of the tar stream")
                }
                return
            }
            let header = try block.withBytes { raw throws(ArchiveError) in try TarHeader(raw) }
            let shown = EntryPath.display(longName ?? pax?.path ?? header.name)
            switch header.type {
            case UInt8(ascii: "x"):
                pax = try PaxRecords(try readHeaderData(header, shown: shown), shown: shown)
                continue
            case UInt8(ascii: "g"):
                _ = try readHeaderData(header, shown: shown)  // global defaults: nothing read here depends on them
                continue
            case UInt8(ascii: "L"):
                longName = Array(try readHeaderData(header, shown: shown).prefix { $0 != 0 })
                continue
            case UInt8(ascii: "K"):
                _ = try readHeaderData(header, shown: shown)
                longLink = true
                continue
            default:
                break
            }
            let name = pax?.path ?? longName ?? header.name
            let size = pax?.size ?? header.size
            let hadLinkName = longLink || pax?.hasLinkPath == true
            (pax, longName, longLink) = (nil, nil, false)
            switch header.type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                guard !hadLinkName else { throw ArchiveError(.link, entry: shown, "a file entry carries a link target") }
                try sink.beginFile(name, declaredSize: size)
                try copy(size, into: sink, buffer: &data, shown: shown)
                try sink.endFile()
            case UInt8(ascii: "5"):
                try sink.directory(name.last == 0x2F ? name : name + [0x2F])
                try skip(try paddedLength(size, shown: shown), buffer: &data, shown: shown)
            case UInt8(ascii: "1"):
                throw ArchiveError(.link, entry: shown, "the entry is a hard link")
            case UInt8(ascii: "2"):
                throw ArchiveError(.link, entry: shown, "the entry is a symbolic link")
            case UInt8(ascii: "3"), UInt8(ascii: "4"):
                throw ArchiveError(.specialFile, entry: shown, "the entry is a device")
            case UInt8(ascii: "6"):
                throw ArchiveError(.specialFile, entry: shown, "the entry is a FIFO")
            default:
                throw ArchiveError(
                    .unsupported, entry: shown, "tar entry type `\(Character(Unicode.Scalar(header.type)))` is not read")
            }
        }
    }

    /// Reads one block; false at the end of the stream, `truncated` inside a block.
    private func readBlock(_ block: inout [UInt8]) throws(ArchiveError) -> Bool {
        let count = try block.withMutableBytes { raw throws(ArchiveError) in try stream.readFully(into: raw) }
        if count == 0 { return false }
        guard count == 512 else { throw ArchiveError(.truncated, "the tar stream ends inside a header block") }
        return true
    }

    /// The data of an extended header (pax records, a GNU long name), bounded by `maxHeaderBytes`.
    private func readHeaderData(_ header: TarHeader, shown: String) throws(ArchiveError) -> [UInt8] {
        guard header.size >= 0, header.size <= Int64(limits.maxHeaderBytes) else {
            throw ArchiveError(.malformed, entry: shown, "an extended header is larger than \(limits.maxHeaderBytes) bytes")
        }
        let padded = (Int(header.size) + 511) / 512 * 512
        var data = [UInt8](repeating: 0, count: padded)
        let count = try data.withMutableBytes { raw throws(ArchiveError) in try stream.readFully(into: raw) }
        guard count == padded else { throw ArchiveError(.truncated, entry: shown, "the tar stream ends inside an extended header") }
        return Array(data.prefix(Int(header.size)))
    }

    private func copy(_ size: Int64, into sink: EntrySink, buffer: inout [UInt8], shown: String) throws(ArchiveError) {
        var left = size
        while left > 0 {
            let count = Int(min(Int64(buffer.count), left))
            try buffer.withMutableBytes { raw throws(ArchiveError) in
                let chunk = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                guard try stream.readFully(into: chunk) == count else {
                    throw ArchiveError(.truncated, entry: shown, "the tar stream ends inside the entry's data")
                }
                try sink.write(UnsafeRawBufferPointer(chunk))
            }
            left -= Int64(count)
        }
        try skip(padding(size), buffer: &buffer, shown: shown)
    }

    private func skip(_ size: Int64, buffer: inout [UInt8], shown: String) throws(ArchiveError) {
        var left = size
        while left > 0 {
            let count = Int(min(Int64(buffer.count), left))
            let read = try buffer.withMutableBytes { raw throws(ArchiveError) in
                try stream.readFully(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
            }
            guard read == count else { throw ArchiveError(.truncated, entry: shown, "the tar stream ends inside an entry") }
            left -= Int64(count)
        }
    }

    private func padding(_ size: Int64) -> Int64 { (512 - size % 512) % 512 }

    /// The bytes an entry's data takes in the stream (its size rounded up to whole blocks), for a size read
    /// from a header: bounded by `maxEntryBytes` first, so that no declared size reaches the arithmetic.
    private func paddedLength(_ size: Int64, shown: String) throws(ArchiveError) -> Int64 {
        guard size >= 0, size <= limits.maxEntryBytes else {
            throw ArchiveError(.entryTooLarge, entry: shown, "the entry declares \(size) bytes, more than \(limits.maxEntryBytes)")
        }
        let (padded, overflow) = size.addingReportingOverflow(padding(size))
        guard !overflow else {
            throw ArchiveError(.malformed, entry: shown, "the entry's declared size is out of range")
        }
        return padded
    }
}
