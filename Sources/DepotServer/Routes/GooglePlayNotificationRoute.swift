import DepotAPI
import DepotGooglePlay
import DepotServices
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/notifications/googleplay`: Google Play's real-time developer notifications, pushed by a Pub/Sub
/// subscription to a URL that carries a shared token (`?token=`). Off (404 `store-not-configured`) without
/// `googlePlay.notifications`.
struct GooglePlayNotificationRoute: Sendable {
    /// The handler, when notifications are on.
    let handler: GooglePlayNotificationHandler?
    /// The accepted push tokens.
    let tokens: BearerTokenDigests

    func register(on router: Router<DepotRequestContext>) {
        router.post("/v1/notifications/googleplay") { request, context in
            guard let handler = self.handler else {
                throw DepotError(.storeNotConfigured, "this server takes no Google Play notifications (googlePlay.notifications)")
            }
            guard let token = request.uri.queryParameters.get("token"), !token.isEmpty else {
                throw DepotError(.notificationTokenRequired, "the push URL must carry ?token=")
            }
            guard self.tokens.accepts(String(token)) else {
                throw DepotError(.notificationTokenRefused, "the notification token is not accepted")
            }
            let limit = GooglePlayDeveloperNotification.maximumBodyLength
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: limit)
            } catch {
                throw DepotError(.tooLarge, "a notification body is at most \(limit) bytes")
            }
            let notification: GooglePlayDeveloperNotification
            do throws(GooglePlayDeveloperNotification.Malformed) {
                notification = try GooglePlayDeveloperNotification(pushBody: Data(buffer.readableBytesView))
            } catch {
                throw DepotError.badRequest(error.description)
            }
            let outcome: GooglePlayNotificationHandler.Outcome
            do throws(GooglePlayNotificationHandler.Failure) {
                outcome = try await handler.handle(notification)
            } catch {
                switch error {
                case .googleUnavailable:
                    throw DepotError(.unavailable, "the Google Play Developer API cannot be asked now; deliver again later")
                case .ledger:
                    throw DepotError(.ledgerUnavailable, "the ledger cannot be reached; try again")
                }
            }
            return try TransactionRoutes.json(["outcome": outcome.rawValue])
        }
    }
}
