import DepotCore
import Crypto
import DepotLedger
import DepotTrust
import Foundation

/// Publisher API keys: `dpk_` followed by 32 random bytes in base64url (43 characters). Only the key's
/// SHA-256 is stored; a presented key is hashed and compared with the stored digest in constant time.
package enum PublisherKey {
    /// The prefix every key starts with.
    package static let prefix = "dpk_"

    /// A new key's text and its ledger record (the text is shown once and never stored).
    package static func make(publisher: String, productPrefixes: [String], now: Int64) -> (key: String, record: PublisherKeyRecord) {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = prefix + Base64URL.encode(secret)
        let id = Hex.lowercase((0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return (
            key,
            PublisherKeyRecord(
                id: id, publisher: publisher, productPrefixes: productPrefixes, keyDigest: digest(of: key), createdAt: now)
        )
    }

    /// Whether `text` has a key's shape: the prefix and 43 base64url characters.
    package static func isWellFormed(_ text: String) -> Bool {
        guard text.hasPrefix(prefix) else { return false }
        let body = text.utf8.dropFirst(prefix.utf8.count)
        return body.count == 43
            && body.allSatisfy {
                ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// SHA-256 of a key's text.
    package static func digest(of key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }

    /// Whether two digests are equal, comparing every byte whatever the earlier ones were.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// Why a publisher name or a product prefix is refused, or nil when it is fine: printable, no spaces or
    /// line breaks, at most 200 characters.
    package static func problem(withName text: String, what: String) -> String? {
        guard !text.isEmpty else { return "\(what) must not be empty" }
        guard text.count <= 200 else { return "\(what) must be at most 200 characters" }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            return "\(what) must not contain spaces or control characters"
        }
        return nil
    }
}

/// The publisher a request was authenticated as, with what its key may act on.
package struct AuthenticatedPublisher: Sendable, Equatable {
    /// The key's id.
    package var keyId: String
    /// Who holds the key.
    package var name: String
    /// Product-id prefixes the key may act on; empty means every product.
    package var productPrefixes: [String]

    /// Creates an identity.
    package init(keyId: String, name: String, productPrefixes: [String]) {
        self.keyId = keyId
        self.name = name
        self.productPrefixes = productPrefixes
    }

    /// Whether the key may act on `productId`.
    package func mayAct(on productId: String) -> Bool {
        productPrefixes.isEmpty || productPrefixes.contains { productId.hasPrefix($0) }
    }
}
