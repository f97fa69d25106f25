// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotTrust's sources (hence no import of DepotTrust there).
import Crypto
import Foundation
import SwiftASN1
import X509

#if !DEPOT_FUZZ_SINGLE_MODULE
@testable import DepotTrust
#endif

/// Reads arbitrary bytes as App Store signed data, verified as a transaction, renewal info or a notification
/// (by the keys of its payload), and lists every broken invariant (an empty list: the input is handled correctly).
///
/// Input layout, by the first byte:
/// - `0x01`: the rest is a payload (any bytes), signed here with a development chain's leaf exactly as the App
///   Store signs; what verifies must be consistent (bundle id, environment, ids, dates).
/// - `0x02`: byte 1 picks an `x5c` position, bytes 2-3 a length, then that many bytes of DER stand at that
///   position of the development chain; the rest is the payload (a valid transaction when empty), signed
///   with the development leaf. Verifies only if the chain is still the development chain.
/// - `0x03`: byte 1 picks an `x5c` position, then (offset, offset, xor) triples edit that development
///   certificate's DER; the payload is a valid transaction. Verifies only if the edits changed nothing that
///   matters to the chain.
/// - anything else: the input is the token itself, verified against Apple's real root (from
///   `shared/realworld`, when there). It verifies only if its signed part (`header.payload`) is that of one of
///   the genuine tokens there, byte for byte: Apple's root never vouches for a mutated token.
///
/// Every refusal is an `AppStoreVerificationError` with a message, never a configuration error.
struct JWSFuzzHarness: Sendable {
    /// The clock: 2026-11-01, after every genuine token's signing and before every certificate's end.
    static let now = Date(timeIntervalSince1970: 1_793_491_200)
    /// The bundle id development payloads are verified for.
    static let bundleId = "com.example.depot.fuzz"
    static let environments: Set<String> = ["Production", "Sandbox", "Xcode", "LocalTesting"]
    /// The transaction signed in modes 2 and 3.
    static let transaction = Array(
        #"{"bundleId":"com.example.depot.fuzz","environment":"Sandbox","originalTransactionId":"2000000123456789","productId":"com.example.level1","purchaseDate":1767225600000,"signedDate":1767225600000,"transactionId":"2000000123456789","type":"Non-Consumable"}"#
            .utf8)

    /// `header.payload` of every genuine token: the only signed parts Apple's root may vouch for.
    var genuineSignedParts: Set<[UInt8]>
    /// Apple Root CA - G3, DER, when the real-world material is there.
    let appleRootDER: [UInt8]?
    let development: DevelopmentCertificateAuthority
    /// The development chain as DER: leaf, intermediate, root.
    let developmentDER: [[UInt8]]
    let developmentVerifier: AppStoreVerifier

    /// A harness reading Apple's root and the genuine tokens from `realworld` (`certs/AppleRootCA-G3.cer`,
    /// `apple-signed/*.jws`), or running without them when it is nil or missing.
    init(realworld: String?) throws {
        var genuine: Set<[UInt8]> = []
        var root: [UInt8]?
        if let realworld, let der = FileManager.default.contents(atPath: realworld + "/certs/AppleRootCA-G3.cer") {
            root = Array(der)
            let folder = realworld + "/apple-signed"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".jws") {
                guard let token = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
                genuine.insert(Self.signedPart(Array(token)))
            }
        }
        genuineSignedParts = genuine
        appleRootDER = root
        development = try DevelopmentCertificateAuthority.issue()
        developmentDER = development.x5c.map { Array(Data(base64Encoded: $0)!) }
        developmentVerifier = try AppStoreVerifier(
            trustedRootsDER: [development.rootDER], bundleId: Self.bundleId, acceptedEnvironments: Self.environments,
            now: { Self.now })
    }

    /// The bytes a token's signature covers: everything before its second `.`.
    static func signedPart(_ token: [UInt8]) -> [UInt8] {
        let dots = token.indices.filter { token[$0] == UInt8(ascii: ".") }
        return dots.count >= 2 ? Array(token[..<dots[1]]) : token
    }

    /// The invariants broken for `data`, described.
    func violations(_ data: [UInt8]) async -> [String] {
        switch data.first {
        case 0x01:
            return await developmentViolations(sign(payload: Array(data.dropFirst()), x5c: developmentDER), replaced: nil)
        case 0x02:
            let position = Int(data.count > 1 ? data[1] : 0) % 3
            let length = data.count > 3 ? Int(data[2]) << 8 | Int(data[3]) : 0
            let der = Array(data.dropFirst(4).prefix(length))
            let payload = Array(data.dropFirst(4 + length))
            var x5c = developmentDER
            x5c[position] = der
            return await developmentViolations(
                sign(payload: payload.isEmpty ? Self.transaction : payload, x5c: x5c), replaced: (position, der))
        case 0x03:
            let position = Int(data.count > 1 ? data[1] : 0) % 3
            var der = developmentDER[position]
            var index = 2
            while index + 2 < data.count {
                der[(Int(data[index]) << 8 | Int(data[index + 1])) % der.count] ^= data[index + 2]
                index += 3
            }
            var x5c = developmentDER
            x5c[position] = der
            return await developmentViolations(sign(payload: Self.transaction, x5c: x5c), replaced: (position, der))
        default:
            return await genuineViolations(data)
        }
    }

    /// A compact JWS of `payload` with header `{"alg":"ES256","x5c":[...]}`, signed by the development leaf.
    func sign(payload: [UInt8], x5c: [[UInt8]]) -> String {
        let list = x5c.map { "\"" + Data($0).base64EncodedString() + "\"" }.joined(separator: ",")
        let header = Array(#"{"alg":"ES256","x5c":["#.utf8) + Array(list.utf8) + Array("]}".utf8)
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try! development.leafKey.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// What a payload is verified as: notification, renewal info or transaction, by the keys it holds (one
    /// verification per input: each costs several signature checks).
    enum Kind: String {
        case transaction, renewalInfo = "renewal info", notification

        init(payload: [UInt8]) {
            let object = JSONValue.parseObject(payload) ?? [:]
            if object["notificationType"] != nil {
                self = .notification
            } else if object["transactionId"] == nil && object["originalTransactionId"] != nil {
                self = .renewalInfo
            } else {
                self = .transaction
            }
        }

        init(token: String) {
            self.init(payload: (try? CompactJWS(parsing: token))?.payload ?? [])
        }
    }

    /// Verifies `token` as `kind`: the refusal's violations, or the verified data's.
    static func verify(
        _ token: String, as kind: Kind, with verifier: AppStoreVerifier
    ) async -> (accepted: Bool, found: [String]) {
        do {
            switch kind {
            case .transaction:
                return (true, transactionViolations(try await verifier.verifyTransaction(token), bundleId: verifier.bundleId))
            case .renewalInfo:
                let renewal = try await verifier.verifyRenewalInfo(token)
                let environment = environments.contains(renewal.environment) ? [] : ["renewal info from \(renewal.environment) accepted"]
                return (true, environment + signedDateViolations(renewal.signedDate))
            case .notification:
                let notification = try await verifier.verifyNotification(token)
                var found = signedDateViolations(notification.signedDate)
                if notification.bundleId != verifier.bundleId || !environments.contains(notification.environment) {
                    found.append("a notification for \(notification.bundleId) in \(notification.environment) accepted")
                }
                if let transaction = notification.transaction {
                    found += transactionViolations(transaction, bundleId: verifier.bundleId)
                }
                return (true, found)
            }
        } catch {
            return (false, refusalViolations(error))
        }
    }

    /// A token signed with the development leaf: what verifies is consistent, and only on the development chain.
    func developmentViolations(_ token: String, replaced: (position: Int, der: [UInt8])?) async -> [String] {
        let verified = await Self.verify(token, as: Kind(token: token), with: developmentVerifier)
        var found = verified.found
        if verified.accepted, let (position, der) = replaced, der != developmentDER[position] {
            // Only the root may differ, and only in what a verifier does not look at (its subject and key
            // are those of the trusted root).
            let root = try? Certificate(derEncoded: der)
            if position != 2 || root?.subject != development.root.subject || root?.publicKey != development.root.publicKey {
                found.append("a chain whose \(["leaf", "intermediate", "root"][position]) was replaced verified")
            }
        }
        return found
    }

    /// A token presented as is: only a genuine token verifies under Apple's root.
    func genuineViolations(_ data: [UInt8]) async -> [String] {
        let token = String(decoding: data, as: UTF8.self)
        guard let verifier = genuineVerifier(for: token) else { return ["no verifier for \(token.debugDescription)"] }
        let kind = Kind(token: token)
        let verified = await Self.verify(token, as: kind, with: verifier)
        var found = verified.found
        if verified.accepted, !genuineSignedParts.contains(Self.signedPart(Array(token.utf8))) {
            found.append("a token Apple did not sign verified as \(kind.rawValue)")
        }
        return found
    }

    /// A verifier trusting Apple's root (the development root without it) for the bundle id the token claims,
    /// so that a genuine token goes all the way through.
    func genuineVerifier(for token: String) -> AppStoreVerifier? {
        var bundleId = Self.bundleId
        if let jws = try? CompactJWS(parsing: token), let payload = JSONValue.parseObject(jws.payload) {
            if case .string(let claimed)? = payload["bundleId"], !claimed.isEmpty {
                bundleId = claimed
            } else if case .object(let inner)? = payload["data"], case .string(let claimed)? = inner["bundleId"],
                !claimed.isEmpty
            {
                bundleId = claimed
            }
        }
        return try? AppStoreVerifier(
            trustedRootsDER: [appleRootDER ?? development.rootDER], bundleId: bundleId,
            acceptedEnvironments: Self.environments, now: { Self.now })
    }

    static func refusalViolations(_ error: AppStoreVerificationError) -> [String] {
        error.code == .configurationInvalid || error.message.isEmpty ? ["refused with \(error)"] : []
    }

    static func signedDateViolations(_ signedDate: Int64) -> [String] {
        let latest = Int64(now.timeIntervalSince1970 * 1000) + AppStoreClockSkew.milliseconds
        return signedDate > latest ? ["data signed at \(signedDate) accepted at \(now)"] : []
    }

    /// A verified transaction carries what the rest of the server relies on.
    static func transactionViolations(_ transaction: SignedTransaction, bundleId: String) -> [String] {
        var found: [String] = []
        if transaction.bundleId != bundleId { found.append("a transaction for \(transaction.bundleId) accepted") }
        if !environments.contains(transaction.environment) { found.append("a transaction from \(transaction.environment) accepted") }
        if !TransactionIdentifier.isAcceptable(transaction.transactionId)
            || !TransactionIdentifier.isAcceptable(transaction.originalTransactionId)
        {
            found.append(
                "transaction ids \(transaction.transactionId.debugDescription), \(transaction.originalTransactionId.debugDescription) accepted"
            )
        }
        if let expires = transaction.expiresDate, expires < transaction.purchaseDate {
            found.append("a transaction expiring before its purchase accepted")
        }
        let (latestPurchase, overflow) = transaction.signedDate.addingReportingOverflow(AppStoreClockSkew.milliseconds)
        if !overflow, transaction.purchaseDate > latestPurchase {
            found.append("a transaction purchased after it was signed accepted")
        }
        found += signedDateViolations(transaction.signedDate)
        return found
    }
}
