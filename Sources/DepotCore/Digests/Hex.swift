/// Lowercase hexadecimal text of bytes, and back: the one encoder for digests, tags and identifiers.
public enum Hex {
    /// `bytes` as lowercase hexadecimal, two digits per byte.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digit(byte >> 4))
            text.append(digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` spells in hexadecimal (either case); nil for an odd length or a non-hex character.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The lowercase ASCII digit of a value below 16.
    @inline(__always)
    static func digit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }

    /// The value of one hexadecimal ASCII digit (`0-9`, `a-f`, `A-F`); nil for any other byte.
    @inline(__always)
    public static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x57
        case 0x41...0x46: digit - 0x37
        default: nil
        }
    }
}
