// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh` (the `archive-structures` target),
// which compiles this file into one module with DepotArchives' sources: it imports nothing.

/// Turns arbitrary bytes into a tar or zip archive whose checksums and bookkeeping are right, so that a
/// fuzzer's inputs get past the checks that random bytes fail (a tar header's checksum, a zip's central
/// directory pointing at its local headers) and reach the numbers behind them: sizes in octal, GNU base-256
/// and pax records, pax record lengths, zip sizes and offsets in the classic and the ZIP64 fields, each
/// drawn from `extremes` as often as from the plausible.
///
/// The first byte chooses the format (even: tar, odd: zip); every later byte chooses the next field. An
/// input that runs out reads as zeros, so every input decodes to an archive.
struct ArchiveStructureGenerator {
    /// Values at the edges of every integer type a reader may hold a field in.
    static let extremes: [Int64] = [
        0, 1, -1, 511, 512, 513, 4096, 0o77777777777, Int64(Int32.max), Int64(UInt32.max), Int64(UInt32.max) + 1,
        Int64.max, Int64.max - 511, Int64(Int.max), Int64.min, 1 << 40,
    ]

    private var input: [UInt8]
    private var index = 0
    /// When set, every numeric field takes its plausible value but the one at `slot` (counted from 0 in the
    /// order fields are written), which takes `value`.
    private let forcing: (slot: Int, value: Int64)?
    /// Numeric fields written so far.
    private var slots = 0

    private init(_ input: [UInt8], forcing: (slot: Int, value: Int64)?) {
        self.input = input
        self.forcing = forcing
    }

    /// The archive `input` describes.
    static func archive(from input: [UInt8]) -> [UInt8] {
        var generator = ArchiveStructureGenerator(input, forcing: nil)
        return generator.archive()
    }

    /// The archive `input` describes with every numeric field plausible but the one at `slot`, set to
    /// `value`; and how many numeric fields the archive has.
    static func archive(from input: [UInt8], slot: Int, value: Int64) -> (archive: [UInt8], slots: Int) {
        var generator = ArchiveStructureGenerator(input, forcing: (slot, value))
        let archive = generator.archive()
        return (archive, generator.slots)
    }

    private mutating func archive() -> [UInt8] { next() % 2 == 0 ? tar() : zip() }

    // MARK: Reading the description

    private mutating func next() -> UInt8 {
        guard index < input.count else { return 0 }
        defer { index += 1 }
        return input[index]
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next()) % choices.count] }

    /// A plausible size most of the time, an extreme one otherwise.
    private mutating func number(plausible: Int64) -> Int64 {
        defer { slots += 1 }
        if let forcing { return forcing.slot == slots ? forcing.value : plausible }
        return next() % 3 == 0 ? pick(Self.extremes) : plausible
    }

    private mutating func name() -> [UInt8] {
        Array(pick(["a.txt", "Contents/a", "Contents/", "pack/b.bin", "../x", "a/b/c/d", "Contents/a"]).utf8)
    }

    private mutating func data() -> [UInt8] {
        let count = pick([0, 1, 100, 511, 512, 513, 1500])
        let fill = next()
        return [UInt8](repeating: fill, count: count)
    }

    // MARK: tar

    private mutating func tar() -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<(Int(next()) % 6 + 1) {
            switch next() % 8 {
            case 0: out += paxHeader()
            case 1: out += tarEntry(type: UInt8(ascii: "L"), name: Array("././@LongLink".utf8), data: name() + [0])
            case 2: out += tarEntry(type: UInt8(ascii: "5"), name: name(), data: [])
            case 3: out += tarEntry(type: pick(Array("g12K7x".utf8)), name: name(), data: data())
            default: out += tarEntry(type: pick([UInt8(ascii: "0"), 0]), name: name(), data: data())
            }
        }
        switch next() % 4 {
        case 0: return out + [UInt8](repeating: 0, count: 512)
        case 1: return out
        default: return out + [UInt8](repeating: 0, count: 1024)
        }
    }

    /// A header block (size field as real octal, extreme octal, or base-256), its data and padding.
    private mutating func tarEntry(type: UInt8, name: [UInt8], data: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ field: [UInt8], at offset: Int) { for (i, byte) in field.enumerated() { header[offset + i] = byte } }
        put(Array(name.prefix(100)), at: 0)
        put(Array("0000644\u{0}".utf8), at: 100)
        let size = number(plausible: Int64(data.count))
        if next() % 2 == 0 {
            put(Self.base256(size), at: 124)
        } else {
            put(Self.octal(size, width: 12), at: 124)
        }
        header[156] = type
        let gnu = next() % 2 == 0
        put(Array((gnu ? "ustar  \u{0}" : "ustar\u{0}00").utf8), at: 257)
        if !gnu && next() % 4 == 0 { put(Array("Contents".utf8), at: 345) }
        put([UInt8](repeating: 0x20, count: 8), at: 148)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(Self.octal(Int64(sum), width: 7) + [0x20], at: 148)
        return header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    /// A pax header whose records carry paths, extreme sizes and, sometimes, an extreme record length.
    private mutating func paxHeader() -> [UInt8] {
        var records: [UInt8] = []
        for _ in 0..<(Int(next()) % 3 + 1) {
            let (key, value): (String, String)
            switch next() % 4 {
            case 0: (key, value) = ("path", String(decoding: name(), as: UTF8.self))
            case 1: (key, value) = ("linkpath", "target")
            case 2: (key, value) = ("size", pick(["18446744073709551615", "-1", "+5", "007"]))
            default: (key, value) = ("size", String(number(plausible: 100)))
            }
            let body = Array(" \(key)=\(value)\n".utf8)
            var length = body.count + 1
            while String(length).utf8.count + body.count != length { length += 1 }
            let spelled = String(number(plausible: Int64(length)))
            records += Array(spelled.utf8) + body
        }
        return tarEntry(type: UInt8(ascii: "x"), name: Array("PaxHeaders/x".utf8), data: records)
    }

    /// `value` in octal, zero-padded, NUL-terminated; the largest octal the field holds when it does not fit.
    static func octal(_ value: Int64, width: Int) -> [UInt8] {
        var digits = value < 0 ? "-1" : String(value, radix: 8)
        if digits.utf8.count > width - 1 { digits = String(repeating: "7", count: width - 1) }
        return Array((String(repeating: "0", count: width - 1 - digits.utf8.count) + digits).utf8) + [0]
    }

    /// GNU base-256: the high bit of the first byte set, then the value big-endian (two's complement, so a
    /// negative value starts with 0xFF).
    static func base256(_ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        let lead: [UInt8] = value < 0 ? [0xFF, 0xFF, 0xFF, 0xFF] : [0x80, 0, 0, 0]
        return lead + (0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * (7 - $0))) }
    }

    // MARK: zip

    private struct ZipEntry {
        var name: [UInt8]
        var method: UInt16
        var stored: [UInt8]
        var crc: UInt32
        var compressed: UInt64
        var uncompressed: UInt64
        var offset: UInt64
    }

    private mutating func zip() -> [UInt8] {
        var out: [UInt8] = []
        var entries: [ZipEntry] = []
        for _ in 0..<(Int(next()) % 4 + 1) {
            let name = name()
            let content = data()
            let deflated = next() % 2 == 0
            // A deflate stream of one stored block (RFC 1951 §3.2.4) inflates to exactly `content`.
            let stored =
                deflated
                ? [1] + Self.le(UInt64(content.count), 2) + Self.le(UInt64(~UInt16(content.count)), 2) + content
                : content
            var entry = ZipEntry(
                name: name, method: deflated ? 8 : 0, stored: stored, crc: Self.crc32(content),
                compressed: UInt64(stored.count), uncompressed: UInt64(content.count), offset: UInt64(out.count))
            entry.compressed = UInt64(bitPattern: number(plausible: Int64(entry.compressed)))
            entry.uncompressed = UInt64(bitPattern: number(plausible: Int64(entry.uncompressed)))
            entry.offset = UInt64(bitPattern: number(plausible: Int64(entry.offset)))
            out += Self.le(0x0403_4B50, 4) + Self.le(20, 2) + Self.le(0x0800, 2) + Self.le(UInt64(entry.method), 2)
            out += Self.le(0x21, 4) + Self.le(UInt64(entry.crc), 4)
            out += Self.le(Self.classic(entry.compressed), 4) + Self.le(Self.classic(entry.uncompressed), 4)
            out += Self.le(UInt64(name.count), 2) + Self.le(0, 2) + name + stored
            entries.append(entry)
        }
        let directoryOffset = UInt64(out.count)
        var central: [UInt8] = []
        for entry in entries {
            var extra: [UInt8] = []
            for value in [entry.uncompressed, entry.compressed, entry.offset] where Self.classic(value) == 0xFFFF_FFFF {
                extra += Self.le(value, 8)
            }
            if !extra.isEmpty { extra = Self.le(1, 2) + Self.le(UInt64(extra.count), 2) + extra }
            central += Self.le(0x0201_4B50, 4) + Self.le(0x0314, 2) + Self.le(45, 2) + Self.le(0x0800, 2)
            central += Self.le(UInt64(entry.method), 2) + Self.le(0x21, 4) + Self.le(UInt64(entry.crc), 4)
            central += Self.le(Self.classic(entry.compressed), 4) + Self.le(Self.classic(entry.uncompressed), 4)
            central += Self.le(UInt64(entry.name.count), 2) + Self.le(UInt64(extra.count), 2) + Self.le(0, 2)
            central += Self.le(0, 2) + Self.le(0, 2) + Self.le(0o100644 << 16, 4) + Self.le(Self.classic(entry.offset), 4)
            central += entry.name + extra
        }
        out += central
        let count = UInt64(bitPattern: number(plausible: Int64(entries.count)))
        let size = UInt64(bitPattern: number(plausible: Int64(central.count)))
        let offset = UInt64(bitPattern: number(plausible: Int64(directoryOffset)))
        if next() % 2 == 0 {
            // ZIP64: the end record and its locator, the classic record saying "look there".
            let zip64End = UInt64(out.count)
            out += Self.le(0x0606_4B50, 4) + Self.le(44, 8) + Self.le(45, 2) + Self.le(45, 2) + Self.le(0, 4) + Self.le(0, 4)
            out += Self.le(count, 8) + Self.le(count, 8) + Self.le(size, 8) + Self.le(offset, 8)
            out += Self.le(0x0706_4B50, 4) + Self.le(0, 4) + Self.le(zip64End, 8) + Self.le(1, 4)
            out += Self.le(0x0605_4B50, 4) + Self.le(0, 4) + Self.le(0xFFFF, 2) + Self.le(0xFFFF, 2)
            out += Self.le(0xFFFF_FFFF, 4) + Self.le(0xFFFF_FFFF, 4) + Self.le(0, 2)
        } else {
            let shortCount = min(count, 0xFFFF)
            out += Self.le(0x0605_4B50, 4) + Self.le(0, 4) + Self.le(shortCount, 2) + Self.le(shortCount, 2)
            out += Self.le(Self.classic(size), 4) + Self.le(Self.classic(offset), 4) + Self.le(0, 2)
        }
        return out
    }

    /// A value as a classic 32-bit field: itself when it fits below all ones, else all ones (ZIP64's "see the
    /// extra field").
    private static func classic(_ value: UInt64) -> UInt64 { value < 0xFFFF_FFFF ? value : 0xFFFF_FFFF }

    private static func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// CRC-32 with the zip polynomial, bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
