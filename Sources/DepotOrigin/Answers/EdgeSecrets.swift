import Crypto

/// The shared secrets an edge presents to fetch bundles without a grant, to fill its cache.
///
/// A presented value is hashed with SHA-256 and compared with the hash of every accepted secret, always all
/// of them and byte by byte without an early exit, so neither the time taken nor the lengths involved tell
/// an attacker how close a guess came. Two secrets may be accepted at once, so an operator can rotate:
/// add the new one, move the edges to it, remove the old one.
package struct EdgeSecrets: Sendable {
    /// The request field carrying the secret.
    package let headerName: String
    private let digests: [[UInt8]]

    /// The secrets accepted in the field `headerName`; none means edge fill is off.
    package init(headerName: String, secrets: [String]) {
        self.headerName = headerName
        digests = secrets.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    /// Whether any secret is accepted at all.
    package var isEnabled: Bool { !digests.isEmpty }

    /// Whether `presented` is one of the accepted secrets, compared in constant time.
    package func accepts(_ presented: String) -> Bool {
        let digest = Array(SHA256.hash(data: Array(presented.utf8)))
        var matches: UInt8 = 0
        for accepted in digests {
            var difference: UInt8 = 0
            for index in 0..<accepted.count { difference |= accepted[index] ^ digest[index] }
            // 1 when equal, 0 otherwise, without a branch on the secret's bytes.
            matches |= UInt8(truncatingIfNeeded: (Int(difference) - 1) >> 8) & 1
        }
        return matches == 1
    }
}
