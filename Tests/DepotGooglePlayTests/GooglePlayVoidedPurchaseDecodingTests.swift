import DepotGooglePlay
import Foundation
import Testing

/// A voided purchases page with odd numbers in it stays readable: the odd number reads as absent, and the rest of
/// the purchase and of the page as Google sent them.
@Suite("Voided purchases decoding")
struct GooglePlayVoidedPurchaseDecodingTests {
    static func page(_ quantity: String) throws -> GooglePlayVoidedPurchasePage {
        let json = """
            {"voidedPurchases": [
              {"purchaseToken": "t1", "orderId": "GPA.1", "voidedTimeMillis": "1767225600000", "voidedReason": 1,
               "voidedSource": 0, "refundType": 2, "voidedQuantity": \(quantity)},
              {"purchaseToken": "t2", "orderId": "GPA.2", "voidedTimeMillis": "1767225600000", "refundType": 1}
            ]}
            """
        return try JSONDecoder().decode(GooglePlayVoidedPurchasePage.self, from: Data(json.utf8))
    }

    @Test func aPartialRefundReadsItsUnits() throws {
        let voided = try #require(try Self.page("1").voidedPurchases)
        #expect(voided.count == 2)
        #expect(voided[0].voidedQuantity == 1 && voided[0].refundType == 2 && voided[0].voidedAtMillis == 1_767_225_600_000)
        #expect(voided[1].voidedQuantity == nil && voided[1].refundType == 1)
    }

    @Test(arguments: ["1e30", "1.5", "-99999999999999999999", "\"two\"", "null", "true", "{}"])
    func anOddNumberReadsAsAbsent(quantity: String) throws {
        let voided = try #require(try Self.page(quantity).voidedPurchases)
        #expect(voided.count == 2)
        #expect(voided[0].voidedQuantity == nil)
        #expect(voided[0].orderId == "GPA.1" && voided[0].refundType == 2 && voided[0].voidedReason == 1)
    }
}

/// A one-time purchase whose refundable quantity is odd stays readable, its other fields as Google sent them.
@Suite("Product purchase decoding")
struct GooglePlayProductPurchaseDecodingTests {
    @Test(arguments: ["1e30", "1.5", "\"two\"", "null"])
    func anOddRefundableQuantityReadsAsAbsent(refundable: String) throws {
        let json = """
            {"purchaseState": 0, "consumptionState": 0, "acknowledgementState": 1, "orderId": "GPA.1", "quantity": 3,
             "refundableQuantity": \(refundable)}
            """
        let purchase = try JSONDecoder().decode(GooglePlayProductPurchase.self, from: Data(json.utf8))
        #expect(purchase.refundableQuantity == nil)
        #expect(purchase.quantity == 3 && purchase.orderId == "GPA.1" && purchase.acknowledgementState == 1)
    }

    @Test func aRefundableQuantityIsRead() throws {
        let json = #"{"purchaseState": 0, "quantity": 3, "refundableQuantity": 2}"#
        let purchase = try JSONDecoder().decode(GooglePlayProductPurchase.self, from: Data(json.utf8))
        #expect(purchase.quantity == 3 && purchase.refundableQuantity == 2)
    }
}
