/// The proof, handed out only in a redeem's answer, that a finish comes from the one that redeemed:
/// `f1.<keyId>.<base64url HMAC-SHA256 of the transaction id>` under a grant key.
///
/// It is the same for every redeem of a transaction and on every instance sharing the configuration, as long
/// as the active grant key stays the same; tokens made under an older key are accepted while that key is
/// configured, like grants.
enum FinishToken {
    static let prefix = "f1"

    static func make(transactionId: String, key: GrantKey) -> String {
        "\(prefix).\(key.id).\(Base64URL.encode(mac(transactionId, key: key)))"
    }

    /// Whether `token` is a finish token for `transactionId` under one of `keys` (by its key id).
    static func isValid(_ token: String, transactionId: String, keys: [String: GrantKey]) -> Bool {
        let fields = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 128, fields.count == 3, fields[0] == prefix, let key = keys[String(fields[1])],
            let presented = Base64URL.decode(fields[2]), presented.count == 32
        else { return false }
        return key.mac.isValid(presented, for: message(transactionId))
    }

    private static func mac(_ transactionId: String, key: GrantKey) -> [UInt8] {
        Array(key.mac.code(for: message(transactionId)))
    }

    private static func message(_ transactionId: String) -> [UInt8] {
        Array("depot-finish-v1\n\(transactionId)".utf8)
    }
}
