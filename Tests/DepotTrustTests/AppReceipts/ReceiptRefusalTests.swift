import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// What the receipt verifier refuses, each with its own code: genuine receipts changed one way each.
@Suite("App receipt refusals")
struct ReceiptRefusalTests {
    static let name = "production-2024-pure-subscriptions"
    static let bundleId = "org.getpure.pure-iphone"
    /// Its creation date, 2024-02-23T17:27:16Z.
    static let created: Int64 = 1_708_709_236_000

    static func refusal(
        _ bytes: [UInt8], bundleId: String = bundleId, roots: [[UInt8]]? = nil, environments: Set<String> = ["Production"],
        now: Int64? = nil
    ) async throws -> AppStoreVerificationError? {
        await receiptRefusal(
            try GenuineReceipts.verifier(bundleId: bundleId, roots: roots, environments: environments, now: now), bytes)
    }

    /// `bytes` with every occurrence of `old` replaced by `new` (of the same length).
    static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        var index = 0
        while index + old.count <= result.count {
            if Array(result[index..<(index + old.count)]) == old {
                result.replaceSubrange(index..<(index + old.count), with: new)
                index += old.count
            } else {
                index += 1
            }
        }
        return result
    }

    @Test func theGenuineReceiptVerifies() async throws {
        #expect(try await Self.refusal(try GenuineReceipts.bytes(Self.name)) == nil)
    }

    @Test func aChangedByteIsRefused() async throws {
        let error = try await Self.refusal(try GenuineReceipts.bytes("tampered-" + Self.name))
        #expect(error?.code == .signatureInvalid)
    }

    @Test func anotherRootIsRefused() async throws {
        let xcode = try GenuineReceipts.certificateDER("xcode-storekit-test-certificate.pem")
        let error = try await Self.refusal(try GenuineReceipts.bytes(Self.name), roots: [xcode])
        #expect(error?.code == .chainUntrusted)
    }

    @Test func theIntermediateAsRootIsNotAnAppleChain() async throws {
        let g5 = try GenuineReceipts.certificateDER("apple-wwdr-g5.pem")
        let error = try await Self.refusal(try GenuineReceipts.bytes(Self.name), roots: [g5])
        #expect(error?.code == .intermediateOIDMissing)
    }

    @Test func aBrokenChainIsRefused() async throws {
        // The last byte of the embedded intermediate's signature, changed: the payload's signature still holds.
        let g5 = try GenuineReceipts.certificateDER("apple-wwdr-g5.pem")
        var broken = g5
        broken[broken.count - 1] ^= 0x01
        let bytes = Self.replacing(g5, with: broken, in: try GenuineReceipts.bytes(Self.name))
        #expect(bytes != (try GenuineReceipts.bytes(Self.name)))
        let error = try await Self.refusal(bytes)
        #expect(error?.code == .chainUntrusted)
    }

    @Test func anUnknownDigestAlgorithmIsRefused() async throws {
        // SHA-256's OID made SHA-512's, in the digest algorithm set and the signer.
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        let sha512: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03]
        let bytes = Self.replacing(sha256, with: sha512, in: try GenuineReceipts.bytes(Self.name))
        let error = try await Self.refusal(bytes)
        #expect(error?.code == .receiptUnsupportedAlgorithm)
    }

    @Test func trailingDataIsRefused() async throws {
        let error = try await Self.refusal(try GenuineReceipts.bytes(Self.name) + [0])
        #expect(error?.code == .receiptMalformed)
    }

    @Test(arguments: [1, 100, 3_000, 6_000])
    func aTruncatedReceiptIsRefused(dropped: Int) async throws {
        let error = try await Self.refusal(Array(try GenuineReceipts.bytes(Self.name).dropLast(dropped)))
        #expect(error?.code == .receiptMalformed)
    }

    @Test func emptyAndGarbageAreRefused() async throws {
        #expect(try await Self.refusal([])?.code == .receiptMalformed)
        #expect(try await Self.refusal(Array("not a receipt".utf8))?.code == .receiptMalformed)
        #expect(try await Self.refusal([0x30, 0x80, 0x00, 0x00])?.code == .receiptMalformed)
    }

    @Test func anotherAppsReceiptIsRefused() async throws {
        let error = try await Self.refusal(try GenuineReceipts.bytes(Self.name), bundleId: "com.example.other")
        #expect(error?.code == .bundleIdMismatch)
    }

    @Test func anEnvironmentNotAcceptedIsRefused() async throws {
        let error = try await Self.refusal(
            try GenuineReceipts.bytes("sandbox-2025-weeka-subscription"), bundleId: "dev.bonzer.weeka.app")
        #expect(error?.code == .environmentNotAccepted)
    }

    @Test func aReceiptMadeAfterTheClockIsRefused() async throws {
        let early = Self.created - AppStoreClockSkew.milliseconds - 1
        #expect(try await Self.refusal(try GenuineReceipts.bytes(Self.name), now: early)?.code == .signedInFuture)
        #expect(try await Self.refusal(try GenuineReceipts.bytes(Self.name), now: Self.created) == nil)
    }

    @Test func aTransactionNotInTheReceiptIsRefused() async throws {
        let verifier = try GenuineReceipts.verifier(bundleId: Self.bundleId)
        let base64 = Data(try GenuineReceipts.bytes(Self.name)).base64EncodedString()
        let found = try await verifier.verifyPurchase(base64: base64, transactionId: "340001196262039")
        #expect(found.productId == "org.getpure.pure.Week")
        await #expect(throws: PurchaseRefusal.transactionNotInReceipt) {
            try await verifier.verifyPurchase(base64: base64, transactionId: "1")
        }
        await #expect(throws: PurchaseRefusal.self) {
            try await verifier.verifyPurchases(base64: "%%%")
        }
    }
}
