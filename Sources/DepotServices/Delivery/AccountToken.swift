import Foundation

/// The app's own account identity, as StoreKit's `appAccountToken`: who is redeeming.
package enum AccountToken {
    /// `token` as a canonical lowercase UUID, nil when the app sent none; anything but a UUID is refused.
    package static func canonical(_ token: String?) throws(DeliveryError) -> String? {
        guard let token else { return nil }
        guard token.utf8.count == 36, let uuid = UUID(uuidString: token) else { throw .invalidAccountToken }
        return uuid.uuidString.lowercased()
    }
}
