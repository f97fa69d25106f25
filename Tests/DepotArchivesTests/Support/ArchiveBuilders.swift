/// Builds tar streams entry by entry, header fields chosen by the test (hostile ones included).
struct TarBuilder {
    private(set) var bytes: [UInt8] = []

    /// Appends a ustar header block (and `data`, padded) with the given type flag.
    mutating func entry(
        _ name: [UInt8], type: UInt8 = UInt8(ascii: "0"), data: [UInt8] = [], declaredSize: Int? = nil,
        linkName: String = "", prefix: [UInt8] = []
    ) {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ field: [UInt8], at offset: Int) { for (index, byte) in field.enumerated() { header[offset + index] = byte } }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(Array(name.prefix(100)), at: 0)
        put(octal(0o644, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(declaredSize ?? data.count, width: 12), at: 124)
        put(octal(0, width: 12), at: 136)
        header[156] = type
        put(Array(linkName.utf8.prefix(100)), at: 157)
        put(Array("ustar\u{0}00".utf8), at: 257)
        put(Array(prefix.prefix(155)), at: 345)
        put(Array(repeating: 0x20, count: 8), at: 148)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(octal(sum, width: 7) + [0x20], at: 148)
        bytes += header
        bytes += data
        bytes += [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    /// A regular file.
    mutating func file(_ name: String, _ data: [UInt8]) { entry(Array(name.utf8), data: data) }

    /// A pax extended header carrying `records` for the next entry.
    mutating func pax(_ records: [(String, String)]) {
        var data: [UInt8] = []
        for (key, value) in records {
            let body = " \(key)=\(value)\n"
            var length = body.utf8.count + 1
            while String(length).utf8.count + body.utf8.count != length { length += 1 }
            data += Array("\(length)\(body)".utf8)
        }
        entry(Array("PaxHeaders/x".utf8), type: UInt8(ascii: "x"), data: data)
    }

    /// The end-of-archive marker: two zero blocks.
    mutating func end() { bytes += [UInt8](repeating: 0, count: 1024) }
}

/// Builds zip archives of stored entries, every header field chosen by the test.
struct ZipBuilder {
    struct Entry {
        var name: [UInt8]
        var data: [UInt8]
        var unixMode: UInt32 = 0o100644
        var crc: UInt32? = nil
        var declaredSize: UInt32? = nil
    }

    var entries: [Entry] = []

    mutating func add(_ name: String, _ data: [UInt8], unixMode: UInt32 = 0o100644) {
        entries.append(Entry(name: Array(name.utf8), data: data, unixMode: unixMode))
    }

    /// The archive: local headers and data, the central directory, the end record.
    func build() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let crc = entry.crc ?? CRC32Table.checksum(entry.data)
            let size = entry.declaredSize ?? UInt32(entry.data.count)
            out += le32(0x0403_4B50) + le16(20) + le16(0x0800) + le16(0) + le16(0) + le16(0x21)
            out += le32(crc) + le32(size) + le32(size) + le16(UInt16(entry.name.count)) + le16(0) + entry.name + entry.data
            central += le32(0x0201_4B50) + le16(0x0314) + le16(20) + le16(0x0800) + le16(0) + le16(0) + le16(0x21)
            central += le32(crc) + le32(size) + le32(size) + le16(UInt16(entry.name.count)) + le16(0) + le16(0)
            central += le16(0) + le16(0) + le32(entry.unixMode << 16) + le32(offset) + entry.name
        }
        let directoryOffset = UInt32(out.count)
        out += central
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(central.count)) + le32(directoryOffset) + le16(0)
        return out
    }

    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}

/// CRC-32 (the zip polynomial), bit by bit: independent of the zlib the reader uses.
enum CRC32Table {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
