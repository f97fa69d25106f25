// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotTrust's sources (hence no import of DepotTrust there).
#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
@testable import DepotTrust
#endif

/// Reads arbitrary bytes as a grant, a finish token and a sealed transaction field, under two fixed grant
/// keys, and lists every broken invariant (an empty list: the input is handled correctly).
///
/// Input layout: the token, then optionally `\n` and the bundle digest it is checked against (the seeds'
/// digest when absent or not a digest's text), then optionally `\n` and a transaction id. Invariants: parsing any bytes never
/// traps; a grant that verifies is exactly the grant the server would issue for what it carries (so a
/// mutated grant never verifies, and a verified grant round-trips); the same for finish tokens and sealed
/// fields; a refusal carries a code and a message; and any transaction id a grant can carry (when the input
/// names one) survives issuing and verifying.
enum GrantFuzzHarness {
    /// The digest the seeds' grants were issued for.
    static let digest = BundleDigest(hex: String(repeating: "5a", count: 32))!
    /// Another bundle, which the grants of `digest` must not open.
    static let otherDigest = BundleDigest(hex: String(repeating: "5b", count: 32))!

    /// The digest a line of input spells, or the seeds' digest when it spells none.
    static func digest(named line: some Collection<UInt8>) -> BundleDigest {
        BundleDigest(hex: String(decoding: line, as: UTF8.self)) ?? digest
    }
    /// The clock grants are checked at: 2001-09-09; the seeds expire in 2033.
    static let now: Int64 = 1_000_000_000
    /// Two keys: grants under both verify (rotation), new ones are made under `k1`.
    static let keys = [
        try! GrantKey(id: "k1", secret: Array(repeating: 7, count: 32)),
        try! GrantKey(id: "k2-old", secret: Array(0..<40)),
    ]
    static let authority = try! GrantAuthority(keys: keys, activeKeyId: "k1")
    /// One authority per key as the active one, to issue what each would.
    static let issuers = Dictionary(
        uniqueKeysWithValues: keys.map { ($0.id, try! GrantAuthority(keys: keys, activeKeyId: $0.id)) })

    /// The invariants broken for `data`, described.
    static func violations(_ data: [UInt8]) -> [String] {
        let lines = data.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        let token = String(decoding: lines[0], as: UTF8.self)
        let digest = lines.count > 1 ? Self.digest(named: lines[1]) : Self.digest
        let transactionId = lines.count > 2 ? String(decoding: lines[2], as: UTF8.self) : "2000000123456789"
        var found: [String] = []
        found += grantViolations(token, digest: digest)
        found += finishTokenViolations(token, transactionId: transactionId)
        found += sealViolations(field: token, transactionId: transactionId)
        // Issuing costs a dozen MACs: only for inputs that name a transaction.
        if lines.count > 2 { found += issueViolations(transactionId: transactionId, digest: digest) }
        return found
    }

    /// A grant that verifies is the one the server issues for its key, digest, expiry and transaction.
    static func grantViolations(_ token: String, digest: BundleDigest) -> [String] {
        var found: [String] = []
        let parsed = GrantToken.parse(token)
        if let parsed, !GrantToken.isTokenSafe(Substring(parsed.keyId), allowEmpty: false) {
            found.append("grant key id \(parsed.keyId.debugDescription) parsed")
        }
        do {
            let grant = try authority.verify(token, digest: digest, now: now)
            guard let issuer = issuers[grant.keyId] else { return ["a grant under unknown key \(grant.keyId) verified"] }
            let issued = issuer.issue(digest: digest, expiresAt: grant.expiresAt, transactionId: grant.transactionId)
            if issued != token { found.append("grant \(token.debugDescription) verified; the server issues \(issued.debugDescription)") }
            if grant.expiresAt <= now { found.append("an expired grant verified") }
            if parsed == nil { found.append("a grant verified that does not parse") }
        } catch {
            if error.message.isEmpty { found.append("grant refused without a message: \(error.code)") }
            if error.code == .badKey || error.code == .wrongBundle { found.append("grant refused with \(error.code)") }
        }
        return found
    }

    /// A finish token is valid only as the server makes it for that transaction.
    static func finishTokenViolations(_ token: String, transactionId: String) -> [String] {
        guard authority.isValidFinishToken(token, transactionId: transactionId) else { return [] }
        let made = keys.map { FinishToken.make(transactionId: transactionId, key: $0) }
        return made.contains(token) ? [] : ["finish token \(token.debugDescription) accepted for \(transactionId.debugDescription)"]
    }

    /// A sealed field opens only when it is exactly the seal of what it opens to.
    static func sealViolations(field: String, transactionId: String) -> [String] {
        var found: [String] = []
        for key in keys {
            if let opened = TransactionSeal.open(Substring(field), key: key), TransactionSeal.seal(opened, key: key) != field {
                found.append("sealed field \(field.debugDescription) opened to \(opened.debugDescription) under \(key.id)")
            }
        }
        return found
    }

    /// Any transaction id a grant can carry is carried intact.
    static func issueViolations(transactionId: String, digest: BundleDigest) -> [String] {
        guard transactionId.utf8.count <= TransactionSeal.maximumIdLength else { return [] }
        let grant = authority.issue(digest: digest, expiresAt: now + 60, transactionId: transactionId)
        guard let verified = try? authority.verify(grant, digest: digest, now: now) else {
            return ["a fresh grant for \(transactionId.debugDescription) does not verify"]
        }
        var found: [String] = []
        if verified.transactionId != transactionId {
            found.append("transaction \(transactionId.debugDescription) came back as \(verified.transactionId.debugDescription)")
        }
        if (try? authority.verify(grant, digest: digest == otherDigest ? Self.digest : otherDigest, now: now)) != nil {
            found.append("a grant opened another bundle")
        }
        if (try? authority.verify(grant, digest: digest, now: now + 60)) != nil { found.append("a grant verified at its expiry") }
        let finish = authority.finishToken(transactionId: transactionId)
        if !authority.isValidFinishToken(finish, transactionId: transactionId) { found.append("a fresh finish token is refused") }
        if authority.isValidFinishToken(finish, transactionId: transactionId + "1") {
            found.append("a finish token opened another transaction")
        }
        return found
    }
}
