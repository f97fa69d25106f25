import DepotSettings
import DepotServer
import DepotTrust
import DepotTestSupport
import Foundation
import Testing

/// The steps of the purchase flow that tests of every tier take: sign a transaction with the server's
/// development root, post JSON, read an answer's object, post a signed notification.
enum PurchaseSteps {
    /// Signs a transaction with the server's development root.
    static func sign(
        _ server: LiveServer, product: String, type: String, configure: (inout DevelopmentTransactionBuilder) -> Void = { _ in }
    )
        throws -> (jws: String, id: String)
    {
        try sign(server.application, product: product, type: type, configure: configure)
    }

    /// A transaction for `product` signed by `application`'s development root, and its id.
    static func sign(
        _ application: DepotApplication, product: String, type: String,
        configure: (inout DevelopmentTransactionBuilder) -> Void = { _ in }
    )
        throws -> (jws: String, id: String)
    {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(application.configuration))
        var builder = DevelopmentTransactionBuilder(bundleId: application.configuration.appBundleId, productId: product, type: type)
        configure(&builder)
        return (try authority.sign(payload: builder.payload()), builder.transactionId)
    }

    /// Posts `json` to `path` with the extra header lines `headers`.
    static func post(
        _ client: RawHTTPClient, _ path: String, _ json: String, _ headers: [String] = []
    ) async throws
        -> RawHTTPClient.Response
    {
        let fields = headers.map { $0 + "\r\n" }.joined()
        return try await client.request(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(fields)Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
        )
    }

    /// The answer's JSON object.
    static func object(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// Posts a notification of `type` for transaction `id` of `product`, signed with the server's development root;
    /// returns its effect.
    static func notify(
        _ client: RawHTTPClient, _ server: LiveServer, type: String, id: String, signedDate: Int64, uuid: String,
        product: String = "com.example.level1"
    ) async throws -> String {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(server.application.configuration))
        var notification = DevelopmentNotificationBuilder(notificationType: type, bundleId: server.application.configuration.appBundleId)
        notification.notificationUUID = uuid
        notification.signedDate = signedDate
        notification.signedTransactionInfo = try Self.sign(server, product: product, type: "Non-Consumable") {
            $0.transactionId = id
            if type != "REFUND_REVERSED" { $0.revocationDate = signedDate - 1000 }
        }.jws
        let answer = try await Self.post(
            client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(try authority.sign(payload: notification.payload()))\"}")
        #expect(answer.status == 200, "\(answer.text)")
        return try JSONAnswer(answer)["effect"]?.string ?? ""
    }
}
