import Crypto
import DepotTestSupport
import Foundation
import Testing

@testable import DepotTrust

/// Every numeric field of a signed transaction, renewal info and notification, walked through the extremes and
/// their spellings (`ExtremeNumbers`), as a JSON number and as a digit string, in payloads signed by a trusted
/// test chain so that each value passes the signature check and reaches the date, count and consistency
/// arithmetic: each is read exactly or refused with an `AppStoreVerificationError`, never a trap; dates outside
/// 1970...9999 and quantities outside 1...1,000,000 are always refused.
@Suite("App Store signed data: numbers at their extremes")
struct PayloadExtremeValueTests {
    /// How a field's value is judged.
    enum Kind: Sendable {
        /// Milliseconds since 1970: read exactly within `AppStoreDate.milliseconds`, refused outside.
        case date
        /// The quantity: read exactly within `SignedTransaction.quantities`, refused outside.
        case count
        /// Any `Int64`: read exactly, refused when it is not one.
        case integer
        /// An id that may arrive as a number: kept as its decimal text.
        case identifier
    }

    struct Field: Sendable, CustomTestStringConvertible {
        /// `transaction`, `renewal` or `notification`.
        var payload: String
        /// The key, `data.` in front for a field of a notification's `data`.
        var key: String
        var kind: Kind
        var testDescription: String { "\(payload) \(key)" }
    }

    static let fields: [Field] =
        [
            ("purchaseDate", Kind.date), ("expiresDate", .date), ("revocationDate", .date), ("signedDate", .date),
            ("quantity", .count), ("revocationReason", .integer), ("transactionId", .identifier),
            ("webOrderLineItemId", .identifier),
        ].map { Field(payload: "transaction", key: $0.0, kind: $0.1) }
        + [
            ("gracePeriodExpiresDate", Kind.date), ("renewalDate", .date), ("signedDate", .date),
            ("autoRenewStatus", .integer), ("expirationIntent", .integer),
        ].map { Field(payload: "renewal", key: $0.0, kind: $0.1) }
        + [("signedDate", Kind.date), ("data.appAppleId", .integer), ("data.status", .integer)].map {
            Field(payload: "notification", key: $0.0, kind: $0.1)
        }

    /// The verifier's clock: a day after the payloads' usual `signedDate`.
    static let now = Date(timeIntervalSince1970: Double(TestChain.signedDate) / 1000 + 86_400)

    @Test(arguments: fields)
    func everySpellingIsReadExactlyOrRefused(field: Field) async throws {
        let chain = try TestChain()
        let verifier = try chain.verifier(now: Self.now)
        let baseline = try await Self.verify(field, raw: nil, chain: chain, verifier: verifier)
        #expect(baseline.refusal == nil, "the payload as it was is accepted: \(String(describing: baseline.refusal))")
        var accepted = 0
        // Two plausible dates besides the extremes: the usual signedDate, and a day later.
        for spelling in ExtremeNumbers.spellings + [String(TestChain.signedDate), String(TestChain.signedDate + 86_400_000)] {
            for quoted in [false, true] {
                let raw = quoted ? "\"\(spelling)\"" : spelling
                let outcome = try await Self.verify(field, raw: raw, chain: chain, verifier: verifier)
                let label = "\(field.key) = \(raw)"
                let exact = ExtremeNumbers.int64(spelling)
                guard let read = outcome.value else {
                    #expect(outcome.refusal != nil, "\(label)")
                    // A JSON number is valid only as JSON writes it (no `+`, no leading zero); a digit string
                    // may carry either.
                    if field.kind == .integer, let exact, quoted || String(exact) == spelling {
                        Issue.record("\(label): an integer that fits Int64 is refused: \(String(describing: outcome.refusal))")
                    }
                    continue
                }
                accepted += 1
                switch field.kind {
                case .date:
                    #expect(read == exact.map(String.init), "\(label)")
                    #expect(exact.map { AppStoreDate.milliseconds.contains($0) } == true, "\(label) is no App Store date")
                case .count:
                    #expect(read == exact.map(String.init), "\(label)")
                    #expect(exact.map { SignedTransaction.quantities.contains(Int($0)) } == true, "\(label) is no quantity")
                case .integer:
                    #expect(read == exact.map(String.init), "\(label)")
                case .identifier:
                    #expect(read == (quoted ? spelling : exact.map(String.init)), "\(label)")
                }
            }
        }
        #expect(accepted > 0, "some plausible value of \(field.key) is accepted")
    }

    /// What verifying a payload with `field` written as `raw` (JSON text; nil leaves the payload as it is) gave:
    /// the field's value as decimal text, or the refusal.
    static func verify(
        _ field: Field, raw: String?, chain: TestChain, verifier: AppStoreVerifier
    ) async throws -> (value: String?, refusal: AppStoreVerificationError?) {
        var payload: [String: JSONValue]
        switch field.payload {
        case "transaction":
            payload = TestChain.transaction(["type": "Auto-Renewable Subscription"])
        case "renewal":
            payload = [
                "originalTransactionId": "2000000000000001", "productId": "com.example.level1", "environment": "Sandbox",
                "signedDate": .integer(TestChain.signedDate),
            ]
        default:
            payload = [
                "notificationType": "DID_RENEW", "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
                "signedDate": .integer(TestChain.signedDate),
                "data": ["bundleId": "com.example.app", "environment": "Sandbox"],
            ]
        }
        let placeholder = "extreme-value-placeholder"
        let path = field.key.split(separator: ".").map(String.init)
        if raw != nil, path.count == 2, case .object(var inner)? = payload[path[0]] {
            inner[path[1]] = .string(placeholder)
            payload[path[0]] = .object(inner)
        } else if raw != nil {
            payload[field.key] = .string(placeholder)
        }
        var text = String(decoding: try JSONValue.encodeObject(payload), as: UTF8.self)
        if let raw { text = text.replacingOccurrences(of: "\"\(placeholder)\"", with: raw) }
        let jws = try sign(Array(text.utf8), chain: chain)
        do throws(AppStoreVerificationError) {
            switch field.payload {
            case "transaction":
                let transaction = try await verifier.verifyTransaction(jws)
                let values: [String: String?] = [
                    "purchaseDate": String(transaction.purchaseDate), "expiresDate": transaction.expiresDate.map(String.init),
                    "revocationDate": transaction.revocationDate.map(String.init), "signedDate": String(transaction.signedDate),
                    "quantity": String(transaction.quantity), "revocationReason": transaction.revocationReason.map(String.init),
                    "transactionId": transaction.transactionId, "webOrderLineItemId": transaction.webOrderLineItemId,
                ]
                return (values[field.key] ?? nil, nil)
            case "renewal":
                let renewal = try await verifier.verifyRenewalInfo(jws)
                let values: [String: String?] = [
                    "gracePeriodExpiresDate": renewal.gracePeriodExpiresDate.map(String.init),
                    "renewalDate": renewal.renewalDate.map(String.init), "signedDate": String(renewal.signedDate),
                    "autoRenewStatus": renewal.autoRenewStatus.map(String.init),
                    "expirationIntent": renewal.expirationIntent.map(String.init),
                ]
                return (values[field.key] ?? nil, nil)
            default:
                let notification = try await verifier.verifyNotification(jws)
                let values: [String: String?] = [
                    "signedDate": String(notification.signedDate), "data.appAppleId": notification.appAppleId.map(String.init),
                    "data.status": notification.status.map(String.init),
                ]
                return (values[field.key] ?? nil, nil)
            }
        } catch {
            return (nil, error)
        }
    }

    /// A compact JWS of exactly these payload bytes, signed by the chain's leaf with its `x5c`.
    static func sign(_ payload: [UInt8], chain: TestChain) throws -> String {
        let header: [String: JSONValue] = ["alg": "ES256", "x5c": TestChain.x5c([chain.leaf, chain.intermediate, chain.root])]
        let input = Base64URL.encode(try JSONValue.encodeObject(header)) + "." + Base64URL.encode(payload)
        let signature = try chain.leafKey.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
