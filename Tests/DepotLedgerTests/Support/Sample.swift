import DepotCore

@testable import DepotLedger

/// Test data: transactions and deliveries with readable defaults.
enum Sample {
    /// 2023-11-14T22:13:20Z in milliseconds, as the App Store writes dates.
    static let purchaseMs: Int64 = 1_700_000_000_000

    static func transaction(
        _ id: String, original: String? = nil, product: String = "com.example.level1", purchase: Int64 = purchaseMs,
        expires: Int64? = nil, revoked: Int64? = nil, token: String? = nil
    ) -> PurchaseTransaction {
        PurchaseTransaction(
            id: id, originalId: original ?? id, productId: product, purchaseDate: purchase, expiresDate: expires,
            revocationDate: revoked, appAccountToken: token)
    }

    /// A digest whose 64 hex digits are one repeated character (a hex digit).
    static func digest(_ c: Character) -> BundleDigest { BundleDigest(hex: String(repeating: c, count: 64))! }

    static let level1 = PlannedDelivery(contentId: "level1", version: "1.0", digest: digest("a"))
    static let level2 = PlannedDelivery(contentId: "level2", version: "1.0", digest: digest("b"))
    static let level3 = PlannedDelivery(contentId: "level3", version: "2.0", digest: digest("c"))

    static func confirmed(_ delivery: PlannedDelivery, digest: BundleDigest? = nil) -> ConfirmedDelivery {
        ConfirmedDelivery(contentId: delivery.contentId, digest: digest ?? delivery.digest)
    }
}

extension Ledger {
    /// Records a transaction without a product type, as one recorded before the ledger kept types.
    func recordTransaction(_ transaction: PurchaseTransaction, now: Int64) async throws(LedgerError) -> LedgerTransaction {
        try await recordTransaction(transaction, productType: nil, now: now)
    }

    /// The events of a transaction's audit trail, names only.
    func events(_ transactionId: String) async throws -> [String] {
        try await auditTrail(transactionId: transactionId).map(\.event)
    }

    /// One delivery's status.
    func delivery(_ transactionId: String, _ contentId: String) async throws -> DeliveryStatus? {
        try await deliveries(transactionId: transactionId).first { $0.delivery.contentId == contentId }
    }
}
