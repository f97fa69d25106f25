import Crypto

/// HMAC-SHA256 under one key, set up once: the key's inner and outer padded blocks are hashed when it is made, and
/// each MAC continues a copy of those two hash states (copied on write), so a MAC costs the hashing of its message
/// and of the inner digest only. `HMAC<SHA256>.authenticationCode(for:using:)` pads and hashes the key again at every
/// call (two of the four SHA-256 blocks of a short message's MAC, and the padded keys' arrays).
struct KeyedMAC: Sendable {
    private let keyed: HMAC<SHA256>

    /// The HMAC under `key`.
    init(key: SymmetricKey) {
        keyed = HMAC(key: key)
    }

    /// The MAC of `message`.
    func code(for message: [UInt8]) -> HashedAuthenticationCode<SHA256> {
        var mac = keyed
        mac.update(data: message)
        return mac.finalize()
    }

    /// Whether `presented` is the MAC of `message`, compared in constant time.
    func isValid(_ presented: [UInt8], for message: [UInt8]) -> Bool {
        code(for: message) == presented
    }
}
