/// The SHA-256 of a bundle's bytes: its name in the store, in its URL (`/v1/bundles/<hex>.zip`) and its strong
/// ETag. Always 32 bytes; written as 64 lowercase hexadecimal digits.
///
/// A value of this type is a well-formed digest by construction: text becomes one only through
/// `init?(hex:)`, which accepts exactly 64 lowercase hex digits (the one spelling Depot hands out, so that a
/// digest never has two names), and bytes only through `init?(bytes:)`, which needs exactly 32.
public struct BundleDigest: Hashable, Comparable, Sendable, CustomStringConvertible {
    // The 32 bytes as four big-endian words: no allocation, and comparing words compares the bytes in order.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The number of bytes in a digest.
    public static let byteCount = 32
    /// The number of hexadecimal digits in its text form.
    public static let hexCount = 64

    /// The digest `hex` spells: exactly 64 lowercase hexadecimal digits; nil for anything else.
    public init?(hex: some StringProtocol) {
        let parsed =
            hex.utf8.withContiguousStorageIfAvailable(Self.words(lowercaseHex:))
            ?? Array(hex.utf8).withUnsafeBufferPointer(Self.words(lowercaseHex:))
        guard let parsed else { return nil }
        words = parsed
    }

    /// The digest 64 lowercase hexadecimal digits in memory spell (a request's bytes); nil for anything else.
    /// Reads the bytes where they lie: no `String` is made for them.
    public init?(lowercaseHex bytes: UnsafeRawBufferPointer) {
        guard let parsed = Self.words(lowercaseHex: bytes.assumingMemoryBound(to: UInt8.self)) else { return nil }
        words = parsed
    }

    /// The four words 64 lowercase hex digits spell; nil for any other length or character. Reads eight digits at
    /// a time, without a branch per digit: it runs for every bundle request.
    private static func words(lowercaseHex digits: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard digits.count == hexCount else { return nil }
        let raw = UnsafeRawBufferPointer(digits)
        func eighth(_ index: Int) -> UInt32? {
            eightDigits(raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self).littleEndian)
        }
        guard let d0 = eighth(0), let d1 = eighth(1), let d2 = eighth(2), let d3 = eighth(3), let d4 = eighth(4),
            let d5 = eighth(5), let d6 = eighth(6), let d7 = eighth(7)
        else { return nil }
        return (
            UInt64(d0) << 32 | UInt64(d1), UInt64(d2) << 32 | UInt64(d3), UInt64(d4) << 32 | UInt64(d5),
            UInt64(d6) << 32 | UInt64(d7)
        )
    }

    /// The value of eight lowercase hex digits, the first in the lowest byte of `digits`; nil unless all eight are
    /// `0`-`9` or `a`-`f`.
    ///
    /// A digit's value is its low four bits, plus 9 for a letter (bit 6 set): one sum for all eight bytes, none above
    /// 24, so nothing carries between bytes. The text is valid exactly when every value is below 16 and writing the
    /// values back as lowercase digits gives the text again (the way back only writes `0`-`9` and `a`-`f`, so any
    /// other byte differs).
    private static func eightDigits(_ digits: UInt64) -> UInt32? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let values = (digits & (ones &* 0x0F)) &+ ((digits >> 6) & ones) &* 9
        let tooLarge = (values &+ ones &* 0x70) & (ones &* 0x80)
        let letters = ((values &+ ones &* 0x76) & (ones &* 0x80)) >> 7
        let written = values &+ ones &* 0x30 &+ letters &* 0x27
        guard tooLarge == 0, written == digits else { return nil }
        // Pairs of digits into bytes (first digit high), then the four bytes, first one highest.
        let pairs = ((values & 0x000F_000F_000F_000F) << 4) | ((values >> 8) & 0x000F_000F_000F_000F)
        return UInt32(truncatingIfNeeded: pairs & 0xFF) << 24 | UInt32(truncatingIfNeeded: (pairs >> 16) & 0xFF) << 16
            | UInt32(truncatingIfNeeded: (pairs >> 32) & 0xFF) << 8 | UInt32(truncatingIfNeeded: (pairs >> 48) & 0xFF)
    }

    /// The digest of these 32 bytes (a SHA-256 output); nil unless there are exactly 32.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        var iterator = bytes.makeIterator()
        func word() -> UInt64 {
            var word: UInt64 = 0
            for _ in 0..<8 { word = word << 8 | UInt64(iterator.next() ?? 0) }
            return word
        }
        words = (word(), word(), word(), word())
    }

    /// The 32 bytes, first to last.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return bytes
    }

    /// The 64 lowercase hexadecimal digits.
    public var hex: String { Hex.lowercase(bytes) }

    /// The 64 lowercase hexadecimal digits.
    public var description: String { hex }

    /// The two digits of the first byte, which the store shards bundles by (`<root>/<shard>/<hex>.zip`).
    public var shard: String { Hex.lowercase(CollectionOfOne(UInt8(truncatingIfNeeded: words.0 >> 56))) }

    /// Whether `a` sorts before `b` (by bytes, which is also the order of their hex text).
    public static func < (a: BundleDigest, b: BundleDigest) -> Bool {
        (a.words.0, a.words.1, a.words.2, a.words.3) < (b.words.0, b.words.1, b.words.2, b.words.3)
    }

    /// Whether both name the same bytes.
    public static func == (a: BundleDigest, b: BundleDigest) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    /// Hashes the 32 bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

extension BundleDigest: Codable {
    /// Decodes the 64-digit text form; anything else is a data-corrupted error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let digest = BundleDigest(hex: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a bundle digest is 64 lowercase hexadecimal digits")
        }
        self = digest
    }

    /// Encodes the 64-digit text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
