import DepotCore
import DepotTrust

/// Grants already verified on one event loop, so a client that sends the same grant many times (ranged and
/// segmented downloads, CDN revalidation) costs a dictionary lookup instead of a parse and an HMAC.
///
/// A cached grant is bound to the digest it was verified for and still expires at its own time; the
/// revocation check is not cached. The cache is cleared when full, which bounds its memory. The grant met last is
/// also kept apart: a connection sending the same grant again is answered by comparing the token's bytes, which
/// costs less than hashing them for the table.
struct GrantCache {
    private struct Entry {
        var digest: BundleDigest
        var grant: GrantToken
    }

    private var entries: [String: Entry] = [:]
    /// The token met last, and its entry (also in `entries`).
    private var last: (token: String, entry: Entry)?
    private let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The grant if it opens `digest` at `now`, verifying it with `authority` when not cached.
    mutating func verify(
        _ token: String, digest: BundleDigest, now: Int64, authority: GrantAuthority
    ) throws(GrantError)
        -> GrantToken
    {
        let isLast = last?.token == token
        if let entry = isLast ? last?.entry : entries[token], entry.digest == digest {
            guard entry.grant.expiresAt > now else {
                entries[token] = nil
                last = nil
                throw GrantError(.expired, "the grant has expired; ask for the downloads again for a fresh one")
            }
            if !isLast { last = (token, entry) }
            return entry.grant
        }
        let grant = try authority.verify(token, digest: digest, now: now)
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        let entry = Entry(digest: digest, grant: grant)
        entries[token] = entry
        last = (token, entry)
        return grant
    }
}

extension String {
    /// ASCII case-insensitive equality with a lowercase literal, without allocating.
    func caseInsensitiveEquals(_ lowercase: StaticString) -> Bool {
        let other = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard utf8.count == other.count else { return false }
        return zip(utf8, other).allSatisfy { a, b in (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == b }
    }
}
