import DepotCore

/// Why a grant was refused or could not be made.
package struct GrantError: CodedError, Sendable, Equatable {
    /// A stable reason code.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String { case malformed, unknownKey, badSignature, expired, wrongBundle, badKey }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The token is not a grant at all.
        package static let malformed = Code(.malformed)
        /// The grant names a key this server does not hold (removed, or never configured).
        package static let unknownKey = Code(.unknownKey)
        /// The signature does not match: forged or altered.
        package static let badSignature = Code(.badSignature)
        /// The grant's expiry has passed.
        package static let expired = Code(.expired)
        /// The grant was issued for another bundle.
        package static let wrongBundle = Code(.wrongBundle)
        /// A configured key is unusable.
        package static let badKey = Code(.badKey)

        /// The code as written in error bodies, e.g. `grant-expired`.
        package var description: String {
            switch value {
            case .malformed: "grant-malformed"
            case .unknownKey: "grant-unknown-key"
            case .badSignature: "grant-bad-signature"
            case .expired: "grant-expired"
            case .wrongBundle: "grant-wrong-bundle"
            case .badKey: "grant-bad-key"
            }
        }
    }

    /// The reason.
    package let code: Code
    /// A message for people; never contains the token.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
