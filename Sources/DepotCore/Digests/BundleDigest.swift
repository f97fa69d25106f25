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
        var digits = hex.utf8.makeIterator()
        func word() -> UInt64? {
            var word: UInt64 = 0
            for _ in 0..<16 {
                guard let digit = digits.next(), let value = Self.lowercaseValue(digit) else { return nil }
                word = word << 4 | UInt64(value)
            }
            return word
        }
        guard let a = word(), let b = word(), let c = word(), let d = word(), digits.next() == nil else { return nil }
        words = (a, b, c, d)
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

    /// A digit's value when it is `0-9` or `a-f`: the uppercase spelling is refused, so a digest has one name.
    private static func lowercaseValue(_ digit: UInt8) -> UInt8? {
        (0x41...0x46).contains(digit) ? nil : Hex.value(digit)
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
