@testable import DepotServerTestSupport
import DepotSettings
import DepotAppStoreDouble
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// CONSUMPTION_REQUEST answered through the outbox with Send Consumption Information built from Depot's
/// delivery evidence, only for transactions whose customer consented (`POST /v1/transactions/{id}/consent`);
/// the double checks every body against Apple's rules. Both engines.
@Suite("Consumption answers")
struct ConsumptionAnswerTests {
    @Test(arguments: LedgerEngine.tested)
    func consumptionRequestsAreAnsweredOnlyWithConsent(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings()) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let ledger = server.application.ledger
                let client = try RawHTTPClient(port: server.port)
                func sign(_ id: String? = nil) throws -> (jws: String, id: String) {
                    try PurchaseRequests.sign(
                        dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1", type: "Non-Consumable"
                    ) { if let id { $0.transactionId = id } }
                }
                func consent(_ id: String, _ json: String) async throws -> RawHTTPClient.Response {
                    try await client.request(PurchaseRequests.post("/v1/transactions/\(id)/consent", json))
                }

                // A: delivered and finished, consented. B: redeemed, never downloaded, consented. C: delivered, no consent.
                let delivered = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                let redeemedOnly = try sign()
                let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(redeemedOnly.jws)))
                let tokenB = try #require(redeemed["transaction.finishToken"]?.string)
                let unconsented = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                try await eventually("the finishes acknowledged") {
                    let first = try await ledger.appleJobIsDone(delivered.id)
                    let second = try await ledger.appleJobIsDone(unconsented.id)
                    return first && second
                }

                // The consent route refuses bad input with the error shape and changes nothing.
                let tokenA = try #require(
                    try JSONAnswer(try await client.request(PurchaseRequests.redeem(try sign(delivered.id).jws)))[
                        "transaction.finishToken"]?.string)
                for (json, status) in [
                    (#"{"customerConsented": true}"#, 401), (#"{"finishToken": "f1.x.y", "customerConsented": true}"#, 404),
                    (#"{"finishToken": "\#(tokenA)"}"#, 400), (#"{"finishToken": "\#(tokenA)", "customerConsented": "yes"}"#, 400),
                    ("not json", 400),
                ] {
                    let refused = try await consent(delivered.id, json)
                    #expect(refused.status == status, "\(json): \(refused.text)")
                    #expect(try JSONAnswer(refused)["error.code"]?.string != nil)
                }
                // Another transaction's token does not open this one.
                #expect(try await consent(delivered.id, #"{"finishToken": "\#(tokenB)", "customerConsented": true}"#).status == 404)
                #expect(try await ledger.consumptionConsentedAt(transactionId: delivered.id) == nil)
                let granted = try await consent(delivered.id, #"{"finishToken": "\#(tokenA)", "customerConsented": true}"#)
                #expect(granted.status == 200, "\(granted.text)")
                #expect(try JSONAnswer(granted)["customerConsented"]?.value as? Bool == true)
                #expect(try await consent(redeemedOnly.id, #"{"finishToken": "\#(tokenB)", "customerConsented": true}"#).status == 200)

                // Apple asks about all three.
                let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: data + "/dev-ca")
                var payloads: [String: String] = [:]
                for id in [delivered.id, redeemedOnly.id, unconsented.id] {
                    var builder = DevelopmentNotificationBuilder(
                        notificationType: "CONSUMPTION_REQUEST", bundleId: AppStoreDoubleFixture.bundleId)
                    builder.signedTransactionInfo = try sign(id).jws
                    let payload = try authority.sign(payload: builder.payload())
                    payloads[id] = payload
                    let answer = try await client.request(
                        PurchaseRequests.post("/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}"))
                    #expect(answer.status == 200, "\(answer.text)")
                }
                try await eventually("both consented answers acknowledged") {
                    for id in [delivered.id, redeemedOnly.id] {
                        guard
                            try await ledger.storeJobs(transactionId: id).contains(where: { $0.kind == .consumption && $0.state == .done })
                        else { return false }
                    }
                    return true
                }
                let puts = appStore.double.requests.filter { $0.method == "PUT" }
                #expect(puts.map(\.status) == [202, 202])
                let bodies = Dictionary(uniqueKeysWithValues: puts.map { ($0.path, $0.body) })
                #expect(
                    bodies["/inApps/v2/transactions/consumption/\(delivered.id)"]
                        == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
                #expect(
                    bodies["/inApps/v2/transactions/consumption/\(redeemedOnly.id)"]
                        == #"{"consumptionPercentage":0,"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","sampleContentProvided":false}"#
                )
                // Without consent nothing is queued or sent, and the reason is on record.
                #expect(try await ledger.storeJobs(transactionId: unconsented.id).allSatisfy { $0.kind == .finish })
                let trail = try await ledger.auditTrail(transactionId: unconsented.id)
                #expect(trail.contains { $0.event == "apple-consumption-not-sent" && $0.detail.contains("consent") })

                // Apple retrying the same notification queues nothing more.
                let again = try await client.request(
                    PurchaseRequests.post("/v1/notifications/appstore", "{\"signedPayload\": \"\(try #require(payloads[delivered.id]))\"}"))
                #expect(try JSONAnswer(again)["duplicate"]?.value as? Bool == true)
                let jobs = try await ledger.storeJobs(transactionId: delivered.id).filter { $0.kind == .consumption }
                #expect(jobs.map(\.state) == [.done] && jobs.first?.attempts == 1)

                // Withdrawn consent: a new request is recorded as not sent.
                #expect(try await consent(redeemedOnly.id, #"{"finishToken": "\#(tokenB)", "customerConsented": false}"#).status == 200)
                var builder = DevelopmentNotificationBuilder(
                    notificationType: "CONSUMPTION_REQUEST", bundleId: AppStoreDoubleFixture.bundleId)
                builder.signedTransactionInfo = try sign(redeemedOnly.id).jws
                let later = try await client.request(
                    PurchaseRequests.post(
                        "/v1/notifications/appstore", "{\"signedPayload\": \"\(try authority.sign(payload: builder.payload()))\"}"))
                #expect(try JSONAnswer(later)["effect"]?.string?.contains("not sent") == true)
                #expect(try await ledger.storeJobs(transactionId: redeemedOnly.id).first { $0.kind == .consumption }?.state == .done)
            }
        }
    }
}
