import Crypto
import Foundation
import Synchronization

/// The `x5c` chains one verifier has already built to a trusted root, by the exact text of their three entries, as
/// Apple's App Store Server Library keeps verified chains: a token presenting a known chain needs only its ES256
/// signature checked with the leaf's key, and its `signedDate` within the window in which all three certificates are
/// valid (the only time-dependent part of the chain's verification). At most ``capacity`` chains are kept (Apple
/// signs with a handful at a time); when full, one is dropped to make room.
final class VerifiedChainCache: Sendable {
    /// A chain verified once: the leaf's key, and when all three certificates are valid.
    struct Entry: Sendable {
        let leafKey: P256.Signing.PublicKey
        let validFrom: Date
        let validUntil: Date
    }

    /// The most chains kept.
    static let capacity = 32

    private let entries = Mutex<[String: Entry]>([:])

    /// The cache key of a header's `x5c`: its three entries' text, or nil when it is not three strings.
    static func key(of header: [String: JSONValue]) -> String? {
        guard case .array(let entries)? = header["x5c"], entries.count == 3 else { return nil }
        var key = ""
        for entry in entries {
            guard case .string(let text) = entry else { return nil }
            key += text
            key += "."
        }
        return key
    }

    /// The chain verified under `key`, if kept.
    func entry(_ key: String) -> Entry? { entries.withLock { $0[key] } }

    /// Keeps a verified chain.
    func keep(_ entry: Entry, as key: String) {
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= Self.capacity, let dropped = entries.keys.first {
                entries[dropped] = nil
            }
            entries[key] = entry
        }
    }

    /// How many chains are kept.
    var count: Int { entries.withLock { $0.count } }
}
