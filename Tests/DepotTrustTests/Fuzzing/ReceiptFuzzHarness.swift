// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotTrust's sources (hence no import of DepotTrust there).
import Crypto
import Foundation

#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
@testable import DepotTrust
#endif

/// Reads arbitrary bytes as a StoreKit 1 app receipt, verified offline, and lists every broken invariant (an
/// empty list: the input is handled correctly).
///
/// Input layout, by the first byte:
/// - `0x01`: the rest is a receipt payload (any bytes), signed here by the harness's development receipt
///   authority exactly as Apple signs; the signature and chain hold, so it is accepted or refused only for what
///   the payload says (`receipt-malformed`, `bundle-id-mismatch`, `environment-not-accepted`,
///   `signed-in-future`, `certificate-expired` for a creation date outside the chain's years), and what is accepted is consistent: the configured bundle id, a creation date in range
///   and not in the future, records with ids, quantities within bounds, at most the maximum count, the device
///   fields within their bounds and the device check what the hash says. The verifier trusts the harness's root
///   for `Production` receipts too, as a development server does; one that does not refuses exactly those
///   (`chain-untrusted`) and accepts the rest.
/// - `0x02`: (offset, xor) pairs edit a receipt the harness signed; whatever still verifies carries the payload
///   that was signed, byte for byte.
/// - anything else: a whole receipt (the genuine ones of `shared/realworld/app-receipts` start with `0x30`),
///   verified against Apple Root CA and the harness's root; anything whose signature and chain hold carries one
///   of the genuine payloads or was signed by the harness.
///
/// Every refusal is an `AppStoreVerificationError` with one of the codes the verifier documents.
struct ReceiptFuzzHarness: Sendable {
    static let bundleId = "com.example.depot.fuzz"
    /// The codes a receipt can be refused with.
    static let codes: Set<String> = [
        "receipt-malformed", "receipt-unsupported-algorithm", "signature-invalid", "signed-in-future", "certificate-expired",
        "chain-untrusted", "leaf-oid-missing", "intermediate-oid-missing", "bundle-id-mismatch", "environment-not-accepted",
        "payload-inconsistent",
    ]

    let authority: DevelopmentReceiptAuthority
    let verifier: AppReceiptVerifier
    /// The same root without development trust: only Apple signs `Production` receipts for it.
    let productionVerifier: AppReceiptVerifier
    /// Verifiers of any bundle id trusting Apple Root CA and the harness's root, and the genuine payloads.
    let genuinePayloads: Set<[UInt8]>
    let anyApp: AppReceiptVerifier
    /// The receipt mode 2 edits, and its payload.
    let signed: (receipt: [UInt8], payload: [UInt8])

    /// A harness with a fresh development receipt authority; Apple Root CA and the genuine receipts are read from
    /// `realworld` (`app-receipts/`) when it is given and there.
    init(realworld: String?) throws {
        let directory = NSTemporaryDirectory() + "depot-receipt-fuzz-\(UInt64.random(in: 0 ... .max))"
        authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: directory)
        try? FileManager.default.removeItem(atPath: directory)
        let environments: Set<String> = ["Production", "Sandbox", "Xcode"]
        verifier = try AppReceiptVerifier(
            trustedRootsDER: [authority.rootDER], bundleId: Self.bundleId, acceptedEnvironments: environments,
            trustsDevelopmentProduction: true)
        productionVerifier = try AppReceiptVerifier(
            trustedRootsDER: [authority.rootDER], bundleId: Self.bundleId, acceptedEnvironments: environments)
        var roots = [authority.rootDER]
        var payloads: Set<[UInt8]> = []
        let folder = (realworld ?? "") + "/app-receipts/"
        if realworld != nil, let pem = FileManager.default.contents(atPath: folder + "apple-inc-root.pem") {
            let body =
                String(decoding: pem, as: UTF8.self).components(separatedBy: "-----")
                .first { $0.count > 100 }?.filter { !$0.isWhitespace } ?? ""
            if let der = Data(base64Encoded: body) { roots.append(Array(der)) }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names where name.hasSuffix(".der") && !name.hasPrefix("tampered") {
                if let bytes = FileManager.default.contents(atPath: folder + name),
                    let envelope = try? ReceiptEnvelope(bytes: Array(bytes))
                {
                    payloads.insert(envelope.payload)
                }
            }
        }
        genuinePayloads = payloads
        // Every bundle id: a receipt of another app is refused last, after its signature and chain held.
        anyApp = try AppReceiptVerifier(trustedRootsDER: roots, bundleId: "-", acceptedEnvironments: environments)
        var builder = DevelopmentReceiptBuilder(bundleId: Self.bundleId, productId: "com.example.level1", type: "autoRenewable")
        builder.transactionId = "2000000000000001"
        builder.creationDate = 1_767_225_600_000
        builder.purchaseDate = 1_767_225_600_000
        builder.expiresDate = 1_769_904_000_000
        let payload = try builder.payload()
        signed = (try authority.sign(payload: payload), payload)
    }

    /// Every invariant `input` breaks.
    func violations(_ input: [UInt8]) async -> [String] {
        guard let mode = input.first else { return [] }
        let rest = Array(input.dropFirst())
        switch mode {
        case 0x01:
            guard let receipt = try? authority.sign(payload: rest) else { return ["the harness could not sign"] }
            return await signedPayloadViolations(receipt)
        case 0x02:
            var receipt = signed.receipt
            var index = 0
            while index + 2 < rest.count {
                let offset = (Int(rest[index]) << 8 | Int(rest[index + 1])) % receipt.count
                receipt[offset] ^= rest[index + 2]
                index += 3
            }
            var found = await outcome(verifier, receipt).found
            if let envelope = try? ReceiptEnvelope(bytes: receipt), (try? await verifier.verify(receipt)) != nil,
                envelope.payload != signed.payload
            {
                found.append("an edited receipt verified with a payload that was not signed")
            }
            return found
        default:
            let (code, found) = await outcome(anyApp, input)
            var violations = found
            // Past the signature and the chain: the payload is one Apple (or the harness) signed.
            if code == nil || code == "bundle-id-mismatch" || code == "environment-not-accepted" {
                let payload = (try? ReceiptEnvelope(bytes: input))?.payload ?? []
                if !genuinePayloads.contains(payload) && payload != signed.payload {
                    violations.append("a receipt passed the signature and chain checks with a payload no one signed")
                }
            }
            return violations
        }
    }

    /// A receipt the harness signed: refused only for what its payload says, and consistent when accepted.
    private func signedPayloadViolations(_ receipt: [UInt8]) async -> [String] {
        let (code, found) = await outcome(verifier, receipt)
        var violations = found
        // The harness's chain is valid from 2020 to 2040: a payload made outside those years finds it expired.
        let allowed = ["receipt-malformed", "bundle-id-mismatch", "environment-not-accepted", "signed-in-future", "certificate-expired"]
        if let code, !allowed.contains(code) {
            violations.append("a payload signed by the trusted root was refused as \(code)")
        }
        guard code == nil, let accepted = try? await verifier.verify(receipt) else { return violations }
        if accepted.bundleId != Self.bundleId { violations.append("accepted for another bundle id") }
        if !AppStoreDate.milliseconds.contains(accepted.creationDate) { violations.append("creation date out of range") }
        if accepted.inAppPurchases.count > AppReceiptLimits.maximumInAppPurchases { violations.append("too many records") }
        if accepted.opaqueValue.count > AppReceiptLimits.maximumDeviceFieldLength
            || accepted.sha1Hash.count > AppReceiptLimits.maximumDeviceFieldLength
        {
            violations.append("a device field beyond its bound")
        }
        let device = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        let hash = AppReceipt.deviceHash(deviceId: device, opaqueValue: accepted.opaqueValue, bundleIdDER: accepted.bundleIdDER)
        if accepted.isIssued(toDevice: device) != (!accepted.opaqueValue.isEmpty && accepted.sha1Hash == hash) {
            violations.append("the device check disagrees with the hash")
        }
        let (productionCode, _) = await outcome(productionVerifier, receipt)
        if accepted.receiptType == "Production" ? productionCode != "chain-untrusted" : productionCode != nil {
            violations.append(
                "a development-signed receipt of type \(accepted.receiptType) was judged \(productionCode ?? "accepted") without development trust"
            )
        }
        for record in accepted.inAppPurchases {
            if record.productId.isEmpty || record.transactionId.isEmpty || record.originalTransactionId.isEmpty {
                violations.append("a record with an empty id")
            }
            if !(1...1_000_000).contains(record.quantity) { violations.append("a quantity out of bounds") }
            for date in [record.purchaseDate, record.originalPurchaseDate, record.expiresDate, record.cancellationDate]
            where date.map({ !AppStoreDate.milliseconds.contains($0) }) == true {
                violations.append("a record date out of range")
            }
            do {
                let transaction = try record.purchase(in: accepted)
                if transaction.id != record.transactionId || transaction.revocationDate != record.cancellationDate {
                    violations.append("a record's purchase differs from the record")
                }
            } catch {
                if error.code != .payloadInconsistent { violations.append("a record refused as \(error.code)") }
            }
        }
        return violations
    }

    /// The refusal's code (nil when accepted) and what is wrong with the refusal itself.
    private func outcome(_ verifier: AppReceiptVerifier, _ receipt: [UInt8]) async -> (code: String?, found: [String]) {
        do {
            _ = try await verifier.verify(receipt)
            return (nil, [])
        } catch {
            let code = error.code.description
            var found: [String] = []
            if !Self.codes.contains(code) { found.append("refused with an undocumented code \(code)") }
            if error.message.isEmpty { found.append("refused without a message") }
            return (code, found)
        }
    }
}
