import Foundation
import Testing

@testable import DepotTrust

@Suite("Development certificate authority")
struct DevelopmentCertificateAuthorityTests {
    static let bundleId = "com.example.app"

    static func verifier(trusting rootDER: [UInt8]) throws -> AppStoreVerifier {
        try AppStoreVerifier(
            trustedRootsDER: [rootDER], bundleId: bundleId, acceptedEnvironments: AppStoreEnvironment.known)
    }

    @Test func loadOrCreateTwiceGivesTheSameRoot() async throws {
        try await withTemporaryDirectory { base in
            let directory = base + "/data/dev-ca"
            let first = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
            let second = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory + "/")
            #expect(first.rootDER == second.rootDER)
            #expect(first.x5c == second.x5c)

            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(files == ["intermediate.pem", "leaf-key.pem", "leaf.pem", "root.pem"])
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/leaf-key.pem")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((directoryAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            // Nothing is left behind beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/data") == ["dev-ca"])
            let rootPEM = try String(contentsOfFile: directory + "/root.pem", encoding: .utf8)
            #expect(rootPEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        }
    }

    @Test func signedTransactionVerifiesOnlyWhereTheRootIsTrusted() async throws {
        try await withTemporaryDirectory { base in
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: base + "/dev-ca")
            let builder = DevelopmentTransactionBuilder(
                bundleId: Self.bundleId, productId: "com.example.level1",
                type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
            let jws = try authority.sign(payload: builder.payload())

            let transaction = try await Self.verifier(trusting: authority.rootDER).verifyTransaction(jws)
            #expect(transaction.transactionId == builder.transactionId)
            #expect(transaction.originalTransactionId == builder.transactionId)
            #expect(transaction.transactionId.count == 16 && transaction.transactionId.allSatisfy(\.isNumber))
            #expect(transaction.productId == "com.example.level1")
            #expect(transaction.type == "Non-Consumable")
            #expect(transaction.environment == "Sandbox")
            #expect(transaction.quantity == 1)
            #expect(transaction.expiresDate == nil)
            #expect(abs(transaction.signedDate - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000)

            let stranger = try TestChain()
            let error = await refusal(try Self.verifier(trusting: stranger.rootDER), jws)
            #expect(error?.code == .chainUntrusted)
        }
    }

    @Test func transactionsSignedInThePastStillVerify() async throws {
        try await withTemporaryDirectory { base in
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: base + "/dev-ca")
            var builder = DevelopmentTransactionBuilder(
                bundleId: Self.bundleId, productId: "com.example.monthly",
                type: DevelopmentTransactionBuilder.ProductType.autoRenewable,
                now: Date(timeIntervalSince1970: 1_610_000_000))
            builder.originalTransactionId = "2000000000000000"
            builder.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
            let transaction = try await Self.verifier(trusting: authority.rootDER)
                .verifyTransaction(try authority.sign(payload: builder.payload()))
            #expect(transaction.signedDate == 1_610_000_000_000)
            let oneMonthLater: Int64 = 1_610_000_000_000 + 30 * 86_400_000
            #expect(transaction.expiresDate == oneMonthLater)
            #expect(transaction.originalTransactionId == "2000000000000000")
            #expect(transaction.subscriptionGroupIdentifier != nil && transaction.webOrderLineItemId != nil)
            #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        }
    }

    @Test func notificationRoundTrip() async throws {
        try await withTemporaryDirectory { base in
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: base + "/dev-ca")
            var transaction = DevelopmentTransactionBuilder(
                bundleId: Self.bundleId, productId: "com.example.monthly",
                type: DevelopmentTransactionBuilder.ProductType.autoRenewable)
            transaction.revocationDate = transaction.purchaseDate + 1_000
            transaction.revocationReason = 0
            let renewal = DevelopmentRenewalInfoBuilder(
                originalTransactionId: transaction.transactionId, productId: "com.example.monthly")
            var notification = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: Self.bundleId)
            notification.signedTransactionInfo = try authority.sign(payload: transaction.payload())
            notification.signedRenewalInfo = try authority.sign(payload: renewal.payload())

            let verified = try await Self.verifier(trusting: authority.rootDER)
                .verifyNotification(try authority.sign(payload: notification.payload()))
            #expect(verified.notificationType == "REFUND")
            #expect(verified.notificationUUID == notification.notificationUUID)
            #expect(verified.transaction?.transactionId == transaction.transactionId)
            #expect(verified.transaction?.revocationDate == transaction.purchaseDate + 1_000)
            #expect(verified.renewalInfo?.originalTransactionId == transaction.transactionId)
            #expect(verified.renewalInfo?.autoRenewStatus == 1)
        }
    }

    @Test func concurrentFirstUsesAgreeOnOneRoot() async throws {
        try await withTemporaryDirectory { base in
            let directory = base + "/dev-ca"
            let roots = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<4 {
                    group.addTask { try DevelopmentCertificateAuthority.loadOrCreate(directory: directory).rootDER }
                }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            let stored = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory).rootDER
            #expect(roots == [stored])
            #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["dev-ca"])
        }
    }

    @Test func anEmptyDirectoryIsFilled() async throws {
        try await withTemporaryDirectory { base in
            let directory = base + "/dev-ca"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            _ = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
            #expect(FileManager.default.fileExists(atPath: directory + "/root.pem"))
        }
    }

    @Test func brokenFilesAreReportedNotReplaced() async throws {
        try await withTemporaryDirectory { base in
            let directory = base + "/dev-ca"
            _ = try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
            _ = try DevelopmentCertificateAuthority.loadOrCreate(directory: base + "/other-ca")

            // A leaf key that is not the leaf's.
            let keyPath = directory + "/leaf-key.pem"
            let original = try Data(contentsOf: URL(fileURLWithPath: keyPath))
            try Data(contentsOf: URL(fileURLWithPath: base + "/other-ca/leaf-key.pem")).write(
                to: URL(fileURLWithPath: keyPath))
            #expect(
                (#expect(throws: DevelopmentAuthorityError.self) {
                    try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
                })?.code == .filesInvalid)
            try original.write(to: URL(fileURLWithPath: keyPath))

            // An intermediate from another authority.
            try Data(contentsOf: URL(fileURLWithPath: base + "/other-ca/intermediate.pem"))
                .write(to: URL(fileURLWithPath: directory + "/intermediate.pem"))
            let mixed = #expect(throws: DevelopmentAuthorityError.self) {
                try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
            }
            #expect(mixed?.code == .filesInvalid)

            // A missing or unreadable file.
            try FileManager.default.removeItem(atPath: directory + "/leaf.pem")
            #expect(
                (#expect(throws: DevelopmentAuthorityError.self) {
                    try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
                })?.code == .filesInvalid)
            try "garbage".write(toFile: directory + "/leaf.pem", atomically: true, encoding: .utf8)
            #expect(
                (#expect(throws: DevelopmentAuthorityError.self) {
                    try DevelopmentCertificateAuthority.loadOrCreate(directory: directory)
                })?.code == .filesInvalid)
        }
    }

    @Test(arguments: [
        ("consumable", "Consumable"), ("nonConsumable", "Non-Consumable"),
        ("autoRenewable", "Auto-Renewable Subscription"), ("nonRenewing", "Non-Renewing Subscription"),
        ("freeSubscription", "Non-Consumable"),
    ])
    func depotProductTypesMapToAppStoreTypes(depot: String, appStore: String) {
        #expect(DevelopmentTransactionBuilder.ProductType.forDepotType(depot) == appStore)
    }

    @Test func unknownDepotProductTypeHasNoAppStoreType() {
        #expect(DevelopmentTransactionBuilder.ProductType.forDepotType("lifetime") == nil)
    }
}
