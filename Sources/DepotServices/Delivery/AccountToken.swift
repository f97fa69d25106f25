import Foundation

/// The app's own account identity, as StoreKit's `appAccountToken`: who is redeeming. Only a UUID makes one,
/// kept in its canonical lowercase form, so a flow never has to check it again.
package struct AccountToken: Sendable, Equatable {
    /// The canonical lowercase UUID.
    package let value: String

    /// The token the app sent, or `invalidAccountToken` when it is not a UUID.
    package init(_ text: String) throws(DeliveryError) {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { throw .invalidAccountToken }
        value = uuid.uuidString.lowercased()
    }

    /// The token the app sent, nil when it sent none.
    package static func parse(_ text: String?) throws(DeliveryError) -> AccountToken? {
        guard let text else { return nil }
        return try AccountToken(text)
    }
}
