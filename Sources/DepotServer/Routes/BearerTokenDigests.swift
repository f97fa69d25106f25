import Crypto
import DepotAPI
import DepotCore
import DepotHTTP
import HTTPTypes

/// Bearer tokens accepted by their SHA-256 digests (tokens are never stored), compared in constant time.
struct BearerTokenDigests: Sendable {
    let digests: [[UInt8]]

    /// Tokens whose digests are these lowercase hex strings (checked when the configuration was loaded).
    init(hexDigests: [String]) {
        digests = hexDigests.map { Hex.bytes($0) ?? [] }
    }

    /// Whether `token`'s digest is one of these; every digest is compared whole, whatever matched before.
    func accepts(_ token: String) -> Bool {
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var matched = false
        for candidate in digests where candidate.count == digest.count {
            var difference: UInt8 = 0
            for (a, b) in zip(candidate, digest) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        return matched
    }

    /// Checks an `Authorization` field: throws `missing` without a bearer token, `refused` for a token not
    /// accepted.
    func check(_ authorization: String?, missing: DepotError, refused: DepotError) throws(DepotError) {
        guard let authorization, let token = BearerCredential.token(in: authorization) else { throw missing }
        guard accepts(token) else { throw refused }
    }
}
