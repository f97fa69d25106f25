/// The `Bearer` credential of an `Authorization` field (RFC 6750 §2.1; the scheme is case-insensitive): what grants,
/// publisher keys and operator tokens are sent as.
package enum BearerCredential {
    /// The token of a `Bearer` credential; nil when the value is not one.
    package static func token(in value: String) -> String? {
        var value = value
        return value.withUTF8 { bytes -> String? in
            let raw = UnsafeRawBufferPointer(bytes)
            return tokenRange(in: raw).map { String(decoding: UnsafeRawBufferPointer(rebasing: raw[$0]), as: UTF8.self) }
        }
    }

    /// Where the token of a `Bearer` credential lies in a field value's bytes; nil when the value is not one.
    /// Inlinable: the byte path reads it from every bundle request's bytes.
    @inlinable
    package static func tokenRange(in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        let count = bytes.count
        var start = 0
        while start < count, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        // "bearer" and one space, then at least one byte.
        guard count - start > 7, bytes[start + 6] == 0x20 else { return nil }
        let scheme: StaticString = "bearer"
        for offset in 0..<6 where bytes[start + offset] | 0x20 != scheme.utf8Start[offset] { return nil }
        var first = start + 7
        while first < count, bytes[first] == 0x20 { first += 1 }
        var end = first
        // Eight bytes at a time while none is SP or HTAB (a token is long): a word holds a zero byte exactly when
        // `(w - 0x01…) & ~w & 0x80…` is not zero, and a byte is SP (HTAB) when it is zero after `^ 0x20…` (`^ 0x09…`).
        let ones: UInt64 = 0x0101_0101_0101_0101
        while end + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self)
            let spaces = word ^ (ones &* 0x20)
            let tabs = word ^ (ones &* 0x09)
            if ((spaces &- ones) & ~spaces | (tabs &- ones) & ~tabs) & (ones &* 0x80) != 0 { break }
            end += 8
        }
        while end < count, bytes[end] != 0x20, bytes[end] != 0x09 { end += 1 }
        guard end > first else { return nil }
        return first..<end
    }
}
