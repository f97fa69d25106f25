import Crypto
import DepotCore

/// The parts of a grant token: `g1.<keyId>.<expiresAt>.<sealed transaction>.<mac>`.
///
/// The bundle digest is not carried (it is in the URL) but is covered by the MAC, so a grant only opens
/// the bundle it was issued for. The transaction id is carried sealed (`TransactionSeal`), so a grant URL in
/// a log does not show it; the field is empty for grants made by `depot dev grant`.
package struct GrantToken: Sendable, Equatable {
    /// Format marker, first field of every grant.
    static let prefix = "g1"
    /// Longest token accepted; anything longer is malformed without further work.
    static let maximumLength = 512

    /// The signing key's id.
    package var keyId: String
    /// Expiry in seconds since 1970.
    package var expiresAt: Int64
    /// The transaction field as the token carries it (sealed).
    package var transactionField: String
    /// The transaction the grant was issued for, or empty: set once the grant is verified and its field
    /// opened (`GrantAuthority.verify`); empty right after `parse`.
    package var transactionId: String = ""
    /// The base64url MAC as it appears in the token.
    package var mac: Substring

    /// Splits a token into its fields, or nil when it is not shaped like a grant.
    ///
    /// Works on the UTF-8 bytes of a concrete `String`: it runs for every bundle request that brings a new
    /// grant, and a grant is ASCII by construction (anything else is refused).
    package static func parse(_ token: String) -> GrantToken? {
        let bytes = Substring(token).utf8
        guard bytes.count <= maximumLength else { return nil }
        var fields: [Substring] = []
        fields.reserveCapacity(5)
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == 0x2E {
                guard fields.count < 4 else { return nil }
                fields.append(Substring(bytes[start..<index]))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        fields.append(Substring(bytes[start..<bytes.endIndex]))
        guard fields.count == 5, fields[0] == prefix else { return nil }
        guard isTokenSafe(fields[1], allowEmpty: false), isTokenSafe(fields[3], allowEmpty: true, maximumLength: 96)
        else { return nil }
        guard let expiresAt = parseSeconds(fields[2]) else { return nil }
        let mac = fields[4]
        guard mac.utf8.count == 43, isTokenSafe(mac, allowEmpty: false) else { return nil }
        return GrantToken(keyId: String(fields[1]), expiresAt: expiresAt, transactionField: String(fields[3]), mac: mac)
    }

    /// Whether a field holds only `A-Z a-z 0-9 _ -` and at most `maximumLength` characters.
    static func isTokenSafe(_ field: Substring, allowEmpty: Bool, maximumLength: Int = 64) -> Bool {
        let bytes = field.utf8
        guard bytes.count <= maximumLength, allowEmpty || !bytes.isEmpty else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F
        }
    }

    /// The expiry as the server writes it: decimal digits, no leading zero, so that each grant has exactly
    /// one spelling (the MAC covers the number, not its spelling: `02000000000` would verify as `2000000000`).
    private static func parseSeconds(_ field: Substring) -> Int64? {
        guard !field.isEmpty, field.utf8.count <= 12, field.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            field == "0" || field.utf8.first != 0x30
        else {
            return nil
        }
        return Int64(field)
    }

    /// The bytes the MAC covers.
    static func signedMessage(keyId: String, digest: BundleDigest, expiresAt: Int64, transactionField: String) -> [UInt8] {
        Array("depot-grant-v1\n\(keyId)\n\(digest.hex)\n\(expiresAt)\n\(transactionField)".utf8)
    }
}
