// Byte-level helpers shared by the field parsers. Everything here works on UTF-8 bytes so that parsing a
// header never goes through Character or Unicode segmentation, and nothing here can trap.

enum ASCII {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let comma: UInt8 = 0x2C
    static let quote: UInt8 = 0x22
    static let hyphen: UInt8 = 0x2D
    static let equals: UInt8 = 0x3D

    /// RFC 9110 §5.6.3: OWS is any run of SP and HTAB.
    @inline(__always)
    static func isOWS(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    @inline(__always)
    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }

    /// RFC 9110 §5.6.2: tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        if isDigit(byte) || isAlpha(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Compares `bytes` with an all-lowercase ASCII `lowercase`, ignoring ASCII case in `bytes`.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte &- 0x41 < 26 { byte |= 0x20 }
            if byte != expected[index] { return false }
        }
        return true
    }

    /// Compares a field name with an all-lowercase ASCII name, ignoring case (RFC 9110 §5.1).
    static func fieldName(_ name: String, equals lowercase: StaticString) -> Bool {
        var name = name
        return name.withUTF8 { equalsIgnoringCase($0, lowercase) }
    }

    /// The bounds of `bytes[range]` without leading and trailing OWS.
    static func trimmingOWS(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isOWS(bytes[lower]) { lower += 1 }
        while upper > lower, isOWS(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Reads a run of digits as a non-negative number, saturating at `Int64.max` instead of overflowing
    /// (a 30-digit `last-pos` means "to the end", never a trap). Returns nil unless every byte is a digit.
    static func parseDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        guard !range.isEmpty else { return nil }
        var value: Int64 = 0
        for index in range {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            if value > (Int64.max - Int64(digit)) / 10 {
                value = Int64.max
            } else {
                value = value * 10 + Int64(digit)
            }
        }
        return value
    }
}

/// Runs `body` over the UTF-8 bytes of `value`, copying only when the storage is not contiguous.
@inline(__always)
func withUTF8Bytes<S: StringProtocol, Result>(
    _ value: S, _ body: (UnsafeBufferPointer<UInt8>) -> Result
) -> Result {
    if let result = value.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = String(value)
    return copy.withUTF8(body)
}
