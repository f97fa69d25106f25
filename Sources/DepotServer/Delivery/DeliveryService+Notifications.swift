import DepotAPI
import DepotServices

extension DeliveryService {
    /// Applies a verified App Store Server Notification V2, once per notificationUUID (see
    /// `AppStoreNotificationHandler`).
    func handleNotification(_ request: NotificationRequest) async throws(DepotError) -> NotificationOutcome {
        do {
            let outcome = try await notifications.handle(signedPayload: request.signedPayload)
            return NotificationOutcome(
                notificationUUID: outcome.notificationUUID, duplicate: outcome.duplicate, effect: outcome.effect,
                deliveryStatus: outcome.deliveryStatus)
        } catch {
            throw DepotError(error)
        }
    }
}
