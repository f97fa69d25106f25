import Crypto

/// The transaction id as a grant carries it: sealed, so grant URLs, which reach CDN and proxy logs, never
/// show the id itself, and only a server holding the grant key can read it back.
///
/// The seal is deterministic (a synthetic IV): the same id under the same key always gives the same field,
/// so grants of one transaction share it. `iv` is the first 8 bytes of HMAC-SHA256(k₁, id); the id is XORed
/// with an HMAC-SHA256(k₂, iv ‖ counter) keystream; the field is base64url(iv ‖ ciphertext). k₁ and k₂ are
/// derived from the grant key with labels of their own. The grant's MAC covers the field, so a sealed field
/// cannot be altered; opening it checks the IV again, which refuses any field not sealed with this key.
enum TransactionSeal {
    /// Bytes of synthetic IV at the start of a sealed field.
    static let ivLength = 8
    /// Longest transaction id a grant can carry (its sealed field stays within `GrantToken`'s limit).
    static let maximumIdLength = 64

    /// k₁ and k₂, derived from a grant key with labels of their own.
    struct Keys: Sendable {
        /// HMAC-SHA256 under k₁, the synthetic IV's key.
        let iv: KeyedMAC
        /// HMAC-SHA256 under k₂, the keystream's key.
        let stream: KeyedMAC

        /// The seal keys of the grant key `key`.
        init(deriving key: SymmetricKey) {
            iv = Self.derived(key, label: "depot-transaction-seal-iv")
            stream = Self.derived(key, label: "depot-transaction-seal-stream")
        }

        private static func derived(_ key: SymmetricKey, label: String) -> KeyedMAC {
            KeyedMAC(key: SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: key))))
        }
    }

    /// The sealed field for `id` under `key`; empty for an empty id (grants made by `depot dev grant`).
    static func seal(_ id: String, key: GrantKey) -> String {
        guard !id.isEmpty else { return "" }
        let plain = Array(id.utf8)
        let iv = syntheticIV(plain, key: key)
        return Base64URL.encode(iv + xor(plain, iv: iv, key: key))
    }

    /// The transaction id inside a sealed field, or nil when it was not sealed with `key`.
    static func open(_ field: Substring, key: GrantKey) -> String? {
        guard !field.isEmpty else { return "" }
        guard let bytes = Base64URL.decode(field), bytes.count > ivLength else { return nil }
        let iv = Array(bytes[..<ivLength])
        let plain = xor(Array(bytes[ivLength...]), iv: iv, key: key)
        guard syntheticIV(plain, key: key) == iv else { return nil }
        return String(validating: plain, as: UTF8.self)
    }

    private static func syntheticIV(_ plain: [UInt8], key: GrantKey) -> [UInt8] {
        Array(key.sealKeys.iv.code(for: plain).prefix(ivLength))
    }

    private static func xor(_ bytes: [UInt8], iv: [UInt8], key: GrantKey) -> [UInt8] {
        let stream = key.sealKeys.stream
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var counter: UInt8 = 0
        while out.count < bytes.count {
            let block = stream.code(for: iv + [counter])
            for byte in block where out.count < bytes.count {
                out.append(bytes[out.count] ^ byte)
            }
            counter &+= 1
        }
        return out
    }
}
