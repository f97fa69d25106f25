import Crypto
import Foundation
import Testing

@testable import DepotTrust

@Suite("App Store signed data: payloads")
struct AppStorePayloadTests {
    @Test func unknownFieldsAndUnknownTypeAreKept() async throws {
        let chain = try TestChain()
        let payload = TestChain.transaction([
            "type": "Super-Consumable Bundle",
            "inAppOwnershipType": "SOMETHING_NEW",
            "brandNewField": ["nested": [1, 2.5, true, nil]],
            "price": 990,
            "currency": "EUR",
        ])
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(payload))
        #expect(transaction.type == "Super-Consumable Bundle")
        #expect(transaction.inAppOwnershipType == "SOMETHING_NEW")
        #expect(transaction.fields["brandNewField"] == ["nested": [1, 2.5, true, nil]])
        #expect(transaction.fields["currency"] == "EUR")
    }

    @Test func allTransactionFieldsDecode() async throws {
        let chain = try TestChain()
        let payload = TestChain.transaction([
            "type": "Auto-Renewable Subscription",
            "expiresDate": .integer(TestChain.signedDate + 86_400_000),
            "revocationDate": .integer(TestChain.signedDate - 10),
            "revocationReason": 1,
            "quantity": 3,
            "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            "webOrderLineItemId": "2000000000000002",
            "subscriptionGroupIdentifier": "21000000",
            "originalTransactionId": "2000000000000000",
        ])
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(payload))
        #expect(transaction.type == "Auto-Renewable Subscription")
        #expect(transaction.expiresDate == TestChain.signedDate + 86_400_000)
        #expect(transaction.revocationDate == TestChain.signedDate - 10)
        #expect(transaction.revocationReason == 1)
        #expect(transaction.quantity == 3)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.webOrderLineItemId == "2000000000000002")
        #expect(transaction.subscriptionGroupIdentifier == "21000000")
        #expect(transaction.originalTransactionId == "2000000000000000")
    }

    @Test func numbersMayArriveInOtherShapes() async throws {
        let chain = try TestChain()
        let payload = TestChain.transaction([
            "transactionId": 2_000_000_000_000_001,  // an id as a number
            "purchaseDate": .number(Double(TestChain.signedDate - 1_000)),  // a date as 1.7e12
            "quantity": "2",  // a count as a digit string
            "webOrderLineItemId": 42,
        ])
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(payload))
        #expect(transaction.transactionId == "2000000000000001")
        #expect(transaction.purchaseDate == TestChain.signedDate - 1_000)
        #expect(transaction.quantity == 2)
        #expect(transaction.webOrderLineItemId == "42")
    }

    @Test func missingOptionalFieldsAreNil() async throws {
        let chain = try TestChain()
        var payload = TestChain.transaction()
        for key in ["type", "quantity", "inAppOwnershipType"] { payload[key] = nil }
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(payload))
        #expect(transaction.type == "")
        #expect(transaction.quantity == 1)
        #expect(transaction.inAppOwnershipType == nil)
        #expect(transaction.appAccountToken == nil && transaction.revocationReason == nil)
    }

    @Test(arguments: [
        "transactionId", "originalTransactionId", "productId", "bundleId", "purchaseDate", "signedDate", "environment",
    ])
    func requiredFieldsMustBePresent(field: String) async throws {
        let chain = try TestChain()
        var payload = TestChain.transaction()
        payload[field] = nil
        let error = await refusal(try chain.verifier(), try chain.sign(payload))
        #expect(error?.code == .payloadMalformed)
    }

    @Test(arguments: [
        ("revocationDate", JSONValue.string("yesterday")),
        ("expiresDate", .bool(true)),
        ("purchaseDate", .number(1.5)),
        ("signedDate", .object([:])),
        ("quantity", .array([])),
        ("productId", .bool(false)),
        ("bundleId", .number(.pi)),
    ])
    func fieldsOfTheWrongShapeAreRefused(field: String, value: JSONValue) async throws {
        let chain = try TestChain()
        let error = await refusal(try chain.verifier(), try chain.sign(TestChain.transaction([field: value])))
        #expect(error?.code == .payloadMalformed)
    }

    @Test(arguments: ["[]", "\"text\"", "not json", "{\"a\":"])
    func payloadMustBeAJSONObject(text: String) async throws {
        let chain = try TestChain()
        let header: [String: JSONValue] = [
            "alg": "ES256", "x5c": TestChain.x5c([chain.leaf, chain.intermediate, chain.root]),
        ]
        let input = Base64URL.encode(try JSONValue.encodeObject(header)) + "." + Base64URL.encode(Array(text.utf8))
        let signature = try chain.leafKey.signature(for: Array(input.utf8))
        let jws = input + "." + Base64URL.encode(Array(signature.rawRepresentation))
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .payloadMalformed)
    }

    @Test func renewalInfoVerifiesWithoutBundleId() async throws {
        let chain = try TestChain()
        let payload: [String: JSONValue] = [
            "originalTransactionId": "2000000000000001",
            "productId": "com.example.monthly",
            "autoRenewProductId": "com.example.yearly",
            "autoRenewStatus": 1,
            "isInBillingRetryPeriod": false,
            "renewalDate": .integer(TestChain.signedDate + 1_000),
            "environment": "Sandbox",
            "signedDate": .integer(TestChain.signedDate),
            "eligibleWinBackOfferIds": ["offer1"],
        ]
        let info = try await chain.verifier().verifyRenewalInfo(try chain.sign(payload))
        #expect(info.originalTransactionId == "2000000000000001")
        #expect(info.autoRenewProductId == "com.example.yearly")
        #expect(info.autoRenewStatus == 1)
        #expect(info.isInBillingRetryPeriod == false)
        #expect(info.renewalDate == TestChain.signedDate + 1_000)
        #expect(info.fields["eligibleWinBackOfferIds"] == ["offer1"])

        var production = payload
        production["environment"] = "Production"
        let verifier = try chain.verifier(environments: ["Sandbox"])
        let jws = try chain.sign(production)
        let error = await verificationError { () async throws(AppStoreVerificationError) in
            try await verifier.verifyRenewalInfo(jws)
        }
        #expect(error?.code == .environmentNotAccepted)
    }

    @Test func jsonValueRoundTripsAndKeepsIntegersExact() throws {
        let object: [String: JSONValue] = [
            "big": .integer(9_007_199_254_740_993), "neg": -5, "pi": 3.25, "s": "a/b\u{e9}", "n": nil, "t": true,
            "list": [1, "two", [3]],
        ]
        let bytes = try JSONValue.encodeObject(object)
        #expect(JSONValue.parseObject(bytes) == object)
        #expect(String(decoding: bytes, as: UTF8.self).contains("9007199254740993"))
        #expect(JSONValue.parseObject(Array("[1]".utf8)) == nil)
    }
}
