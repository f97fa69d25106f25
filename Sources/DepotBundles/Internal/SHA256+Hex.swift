import Crypto

extension Sequence<UInt8> {
    /// Lowercase hexadecimal.
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension SHA256.Digest {
    /// Lowercase hexadecimal, the form bundle digests take everywhere.
    var lowercaseHex: String { Array(self).lowercaseHex }
}
