/// Base64url without padding (RFC 4648 §5), as grants and JWS use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes without padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(chunk >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for any other character or an impossible length.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0) }) { return decoded }
        var copy = String(text)
        return copy.withUTF8 { decode(bytes: $0) }
    }

    /// Decodes unpadded base64url from its ASCII bytes; nil for any other byte, an impossible length, or unused
    /// trailing bits that are not zero (so each byte string has exactly one encoding).
    package static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        let rest = count % 4
        // A single leftover sextet cannot encode a byte.
        guard rest != 1 else { return nil }
        let outputCount = count / 4 * 3 + (rest == 0 ? 0 : rest - 1)
        var invalid: UInt8 = 0
        let output = sextets.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
                var index = 0
                var written = 0
                while index + 4 <= count {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])]
                    let d = table[Int(input[index + 3])]
                    invalid |= a | b | c | d
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[written] = UInt8(truncatingIfNeeded: value >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: value)
                    index += 4
                    written += 3
                }
                if rest >= 2 {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = rest == 3 ? table[Int(input[index + 2])] : 0
                    invalid |= a | b | c
                    let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    out[written] = UInt8(truncatingIfNeeded: value >> 16)
                    written += 1
                    if rest == 3 {
                        out[written] = UInt8(truncatingIfNeeded: value >> 8)
                        written += 1
                    }
                    // The bits below the last whole byte must be zero: 4 of them after two sextets, 2 after three.
                    if value & (rest == 2 ? 0xF000 : 0xC0) != 0 { invalid |= 0x80 }
                }
                initialized = written
            }
        }
        // Every valid sextet is below 64; the table gives 0xFF for any other byte.
        return invalid & 0xC0 == 0 ? output : nil
    }

    /// Each byte's sextet, 0xFF for a byte outside the alphabet.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()
}
