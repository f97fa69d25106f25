import DepotCore

/// Why an account assertion was refused. Every refusal is one wire code (`account-assertion-invalid`); `check`
/// names the check that failed, and the message says it for people without echoing the token, a signature or a key.
package struct AccountAssertionError: CodedError, Sendable, Equatable {
    /// The check an assertion failed, written as e.g. `audience`.
    package struct Check: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case malformed, algorithm, key, signature, audience, expired, issuedAt, lifetime, subject
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Not a compact JWS (three base64url parts, a JSON object header and payload), or longer than allowed.
        package static let malformed = Check(.malformed)
        /// The header's `alg` is not exactly `ES256` (`none`, `HS256` and all others are refused).
        package static let algorithm = Check(.algorithm)
        /// The header's `kid` names no configured key.
        package static let key = Check(.key)
        /// The ES256 signature does not verify with the key `kid` names.
        package static let signature = Check(.signature)
        /// `aud` is not the configured audience.
        package static let audience = Check(.audience)
        /// `exp` is missing, not an integer, or not in the future.
        package static let expired = Check(.expired)
        /// `iat` is missing, not an integer, or in the future beyond the allowed skew.
        package static let issuedAt = Check(.issuedAt)
        /// `exp - iat` is more than the configured lifetime, or not positive.
        package static let lifetime = Check(.lifetime)
        /// `sub` is not an account UUID.
        package static let subject = Check(.subject)

        /// The check's name.
        package var description: String { value.rawValue }
    }

    /// The stable wire code, the same for every check.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        /// `account-assertion-invalid`.
        package var description: String { "account-assertion-invalid" }
    }

    /// The check that failed.
    package let check: Check
    /// A sentence for people.
    package let message: String

    /// The wire code.
    package var code: Code { Code() }

    /// A refusal by `check`.
    package init(_ check: Check, _ message: String) {
        self.check = check
        self.message = message
    }
}
