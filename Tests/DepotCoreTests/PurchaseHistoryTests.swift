import Testing

@testable import DepotCore

/// What a purchase listed by account is now: history the device no longer sees, or a purchase that still entitles.
@Suite("Purchase history")
struct PurchaseHistoryTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_790_000_000_000

    static func transaction(
        _ id: String = "t", original: String = "o", purchase: Int64 = now - 40 * day, expires: Int64? = nil,
        revoked: Int64? = nil, store: PurchaseStore = .appStore
    ) -> PurchaseTransaction {
        PurchaseTransaction(
            id: id, originalId: original, productId: "p", purchaseDate: purchase, expiresDate: expires, revocationDate: revoked,
            store: store)
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let transaction: PurchaseTransaction
        let type: ProductType
        var isFinished = false
        var related: [PurchaseTransaction] = []
        var periodSeconds: Int64?
        let expected: PurchaseHistory?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "a finished consumable is consumed", transaction: transaction(), type: .consumable, isFinished: true, expected: .consumed),
        Row(name: "an unfinished consumable is still owed", transaction: transaction(), type: .consumable, expected: nil),
        Row(name: "a non-consumable entitles", transaction: transaction(), type: .nonConsumable, isFinished: true, expected: nil),
        Row(name: "a free subscription entitles", transaction: transaction(), type: .freeSubscription, expected: nil),
        Row(
            name: "a revoked non-consumable is revoked", transaction: transaction(revoked: now - day), type: .nonConsumable,
            expected: .revoked),
        Row(
            name: "a revoked finished consumable is revoked", transaction: transaction(revoked: now - day), type: .consumable,
            isFinished: true, expected: .revoked),
        Row(
            name: "a subscription that ended is expired", transaction: transaction(expires: now - 10 * day), type: .autoRenewable,
            expected: .expired),
        Row(
            name: "a subscription ending at now is expired", transaction: transaction(expires: now), type: .autoRenewable,
            expected: .expired),
        Row(
            name: "a running subscription is not", transaction: transaction(expires: now + day), type: .autoRenewable, expected: nil),
        Row(
            name: "an old renewal of a running subscription is not", transaction: transaction(expires: now - 10 * day),
            type: .autoRenewable,
            related: [transaction("t2", purchase: now - 10 * day, expires: now + 20 * day)], expected: nil),
        Row(
            name: "a renewal refunded leaves the subscription expired", transaction: transaction(expires: now - 10 * day),
            type: .autoRenewable,
            related: [transaction("t2", purchase: now - 10 * day, expires: now + 20 * day, revoked: now - 5 * day)],
            expected: .expired),
        Row(
            name: "a subscription without an expiry covers nothing", transaction: transaction(), type: .autoRenewable,
            expected: .expired),
        Row(
            name: "a Play subscription checked offline runs its product's period", transaction: transaction(store: .googlePlay),
            type: .autoRenewable, periodSeconds: 60 * 86_400, expected: nil),
        Row(
            name: "a non-renewing pass past its duration is expired", transaction: transaction(), type: .nonRenewing,
            periodSeconds: 30 * 86_400, expected: .expired),
        Row(
            name: "a non-renewing pass stacked past now is not", transaction: transaction(), type: .nonRenewing,
            related: [transaction("t2", purchase: now - 35 * day)], periodSeconds: 30 * 86_400, expected: nil),
        Row(
            name: "a period too long to count does not trap", transaction: transaction(), type: .nonRenewing,
            periodSeconds: .max, expected: nil),
    ]

    @Test(arguments: rows)
    func history(_ row: Row) {
        #expect(
            PurchaseHistory.of(
                row.transaction, type: row.type, isFinished: row.isFinished, related: row.related, periodSeconds: row.periodSeconds,
                now: Self.now) == row.expected)
    }
}
