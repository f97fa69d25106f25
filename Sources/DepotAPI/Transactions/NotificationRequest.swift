/// The body of `POST /v1/notifications/appstore`: an App Store Server Notification.
public struct NotificationRequest: Sendable, Equatable, Codable {
    /// The notification as the App Store signs it (a compact JWS).
    public var signedPayload: String

    /// A notification body.
    public init(signedPayload: String) {
        self.signedPayload = signedPayload
    }
}
