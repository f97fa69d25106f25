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

/// Notifications Depot never received, recovered from the App Store's notification history (the double's,
/// two per page): a REFUND known only there revokes the grants; the others are applied once. Both engines.
@Suite("Notification history backfill")
struct NotificationBackfillTests {
    @Test(arguments: LedgerEngine.tested)
    func aRefundDeliveredOnlyThroughTheHistoryRevokesTheGrants(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with(historyPageSize: 2) { appStore in
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings(historyIntervalSeconds: 1)) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let (id, _, urls) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                let url = try #require(urls.first)
                let client = try RawHTTPClient(port: server.port)
                #expect(try await client.request(RawHTTPClient.get(url)).status == 200)

                let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: data + "/dev-ca")
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                func notification(_ type: String, transactionId: String, revokedAt: Int64? = nil) throws -> (payload: String, uuid: String)
                {
                    var builder = DevelopmentNotificationBuilder(notificationType: type, bundleId: AppStoreDoubleFixture.bundleId)
                    builder.signedTransactionInfo = try PurchaseRequests.sign(
                        dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1",
                        type: "Non-Consumable"
                    ) {
                        $0.transactionId = transactionId
                        $0.revocationDate = revokedAt
                    }.jws
                    return (try authority.sign(payload: builder.payload()), builder.notificationUUID)
                }
                let other = try notification("ONE_TIME_CHARGE", transactionId: "2999000000000001")
                let declined = try notification("REFUND_DECLINED", transactionId: id)
                let refund = try notification("REFUND", transactionId: id, revokedAt: now)
                // An old notification outside any window asked for: never fetched.
                let ancient = try notification("REFUND", transactionId: "2999000000000002", revokedAt: now)
                appStore.double.holdNotification(other.payload, sentAt: now - 2000)
                appStore.double.holdNotification(declined.payload, sentAt: now - 1000)
                appStore.double.holdNotification(refund.payload, sentAt: now)
                appStore.double.holdNotification(ancient.payload, sentAt: now - 200 * 86_400_000)

                try await eventually("the grant refused") { try await client.request(RawHTTPClient.get(url)).status == 403 }
                let ledger = server.application.ledger
                #expect(try await ledger.transaction(id: id)?.transaction.revocationDate == now)
                // The revocation applies before the notification is recorded (so a crash between the two repeats
                // the effect, never loses it): wait for the record.
                try await eventually("the refund recorded") {
                    try await ledger.auditTrail(transactionId: id).map(\.detail).contains("REFUND \(refund.uuid)")
                }
                let trail = try await ledger.auditTrail(transactionId: id).map(\.detail)
                #expect(trail.contains("REFUND_DECLINED \(declined.uuid)"))
                #expect(try await ledger.transaction(id: "2999000000000001") != nil)
                #expect(try await ledger.transaction(id: "2999000000000002") == nil)
                // Two pages per pass: the second asked for with the first page's token.
                let history = appStore.double.requests.filter { $0.path.hasPrefix("/inApps/v1/notifications/history") }
                #expect(history.contains { $0.path == "/inApps/v1/notifications/history?paginationToken=2" })
                #expect(history.allSatisfy { $0.status == 200 && $0.body.contains("startDate") && $0.body.contains("endDate") })
                // Later passes find the same notifications again and change nothing.
                let passes = history.count
                try await eventually("another pass") {
                    appStore.double.requests.filter { $0.path.hasPrefix("/inApps/v1/notifications/history") }.count >= passes + 2
                }
                #expect(try await ledger.auditTrail(transactionId: id).filter { $0.event == "revoked" }.count == 1)
            }
        }
    }
}
