import DepotSettings
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Steps the edge tests share.
enum EdgeTestSupport {
    /// Posts a signed REFUND notification for a transaction, as the App Store would.
    static func refund(_ server: LiveServer, client: RawHTTPClient, transactionId: String) async throws {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(server.application.configuration))
        var refund = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: server.application.configuration.appBundleId)
        refund.signedTransactionInfo = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
            $0.transactionId = transactionId
            $0.revocationDate = Int64(Date().timeIntervalSince1970 * 1000)
        }.jws
        let payload = try authority.sign(payload: refund.payload())
        let notified = try await PurchaseSteps.post(client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}")
        #expect(notified.status == 200, "\(notified.text)")
    }
}
