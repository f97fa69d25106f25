/// One 512-byte tar header block: POSIX ustar (`ustar\0` `00`) or GNU (`ustar  \0`).
///
/// POSIX.1-2001 "ustar Interchange Format"; sizes may also be GNU base-256 (the high bit of the first
/// byte set), as GNU tar writes sizes of 8 GiB and more.
struct TarHeader {
    /// The entry's type flag (`0` file, `5` directory, `x` pax record, `L` GNU long name, ...).
    let type: UInt8
    /// `prefix/name` for ustar, `name` for GNU, as raw bytes.
    let name: [UInt8]
    /// The size field: bytes of data following the header.
    let size: Int64

    /// Parses a block that is not all zeros; checks its magic and checksum.
    init(_ block: UnsafeRawBufferPointer) throws(ArchiveError) {
        let bytes = Array(block)
        let rawName = Self.field(bytes, 0, 100)
        let shown = EntryPath.display(rawName)
        let magic = Array(bytes[257..<265])
        let isUstar = magic == Array("ustar\u{0}00".utf8)
        let isGNU = magic == Array("ustar  \u{0}".utf8)
        guard isUstar || isGNU else {
            throw ArchiveError(.malformed, entry: shown, "a tar header has no ustar magic (pre-POSIX tar is not read)")
        }
        guard let stored = Self.octal(bytes[148..<156]) else {
            throw ArchiveError(.malformed, entry: shown, "a tar header's checksum field is not a number")
        }
        var unsigned: Int64 = 0
        var signed: Int64 = 0
        for (index, byte) in bytes.enumerated() {
            let value = (148..<156).contains(index) ? 0x20 : byte
            unsigned += Int64(value)
            signed += Int64(Int8(bitPattern: value))
        }
        guard stored == unsigned || stored == signed else {
            throw ArchiveError(.malformed, entry: shown, "a tar header's checksum does not match (a damaged archive)")
        }
        type = bytes[156]
        let prefix = isUstar ? Self.field(bytes, 345, 155) : []
        name = prefix.isEmpty ? rawName : prefix + [0x2F] + rawName
        guard let size = Self.number(bytes[124..<136]), size >= 0 else {
            throw ArchiveError(.malformed, entry: shown, "a tar header's size is not a number")
        }
        self.size = size
    }

    /// A NUL-terminated text field.
    private static func field(_ bytes: [UInt8], _ start: Int, _ length: Int) -> [UInt8] {
        let slice = bytes[start..<(start + length)]
        return Array(slice.prefix { $0 != 0 })
    }

    /// An octal field (spaces and NULs around it allowed), or GNU base-256 when the first byte's high bit is set.
    static func number(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        if first & 0x80 != 0 {
            guard first == 0x80 else { return nil }  // negative or oversized base-256 values are refused
            var value: Int64 = 0
            for byte in field.dropFirst() {
                guard value <= (Int64.max >> 8) else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        return octal(field)
    }

    private static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        var seenDigit = false
        var ended = false
        for byte in field {
            switch byte {
            case 0x30...0x37 where !ended:
                guard value <= (Int64.max >> 3) else { return nil }
                value = value << 3 | Int64(byte - 0x30)
                seenDigit = true
            case 0x20 where !seenDigit:
                continue
            case 0x20, 0x00:
                ended = true
            default:
                return nil
            }
        }
        return value
    }
}
