import DepotAPI
import DepotGooglePlay
import DepotHTTP
import DepotServices
import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/notifications/googleplay`: Google Play's real-time developer notifications, pushed by a Pub/Sub
/// subscription either with authentication (an OIDC token Google signs, in `Authorization: Bearer`) or to a URL
/// that carries a shared token (`?token=`). Off (404 `store-not-configured`) without `googlePlay.notifications`.
struct GooglePlayNotificationRoute: Sendable {
    /// The handler, when notifications are on.
    let handler: GooglePlayNotificationHandler?
    /// The accepted push tokens.
    let tokens: BearerTokenDigests
    /// The check of authenticated pushes, when `oidc` is configured.
    let oidc: GooglePushTokenVerifier?

    func register(on router: Router<DepotRequestContext>) {
        router.post("/v1/notifications/googleplay") { request, context in
            guard let handler = self.handler else {
                throw DepotError(.storeNotConfigured, "this server takes no Google Play notifications (googlePlay.notifications)")
            }
            try await self.authenticate(request)
            let limit = GooglePlayDeveloperNotification.maximumBodyLength
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: limit)
            } catch {
                throw DepotError(.tooLarge, "a notification body is at most \(limit) bytes")
            }
            // RFC 8259 §8.1: a JSON body is UTF-8, refused whole otherwise (as on every route that reads JSON).
            guard String(validating: buffer.readableBytesView, as: UTF8.self) != nil else {
                throw DepotError.badRequest("the body is not valid UTF-8")
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

    /// Accepts a push with a valid OIDC token (when `oidc` is configured) or an accepted `?token=`.
    private func authenticate(_ request: Request) async throws {
        if let oidc, let field = request.headers[.authorization], let bearer = BearerCredential.token(in: field) {
            do throws(GooglePushTokenVerifier.Refusal) {
                try await oidc.verify(bearer, now: Int64(Date().timeIntervalSince1970))
            } catch {
                if case .certificatesUnavailable = error {
                    throw DepotError(.unavailable, "Google's signing keys cannot be fetched now; deliver again later")
                }
                throw DepotError(.notificationTokenRefused, error.description)
            }
            return
        }
        guard let token = request.uri.queryParameters.get("token"), !token.isEmpty else {
            throw DepotError(
                .notificationTokenRequired, "a push needs ?token= in its URL" + (oidc == nil ? "" : " or an OIDC token in Authorization"))
        }
        guard self.tokens.accepts(String(token)) else {
            throw DepotError(.notificationTokenRefused, "the notification token is not accepted")
        }
    }
}
