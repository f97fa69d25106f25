import DepotCore

/// Why App Store signed data (a transaction, renewal info or a server notification) was refused.
///
/// Messages name the part that failed (a header field, a payload field, a certificate's position) and never
/// echo the token, a signature or a key.
package struct AppStoreVerificationError: CodedError, Sendable, Equatable {
    /// A stable reason code, written as e.g. `chain-untrusted`.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case configurationInvalid = "configuration-invalid"
            case jwsMalformed = "jws-malformed"
            case jwsUnsupportedAlgorithm = "jws-unsupported-algorithm"
            case x5cMissing = "x5c-missing"
            case x5cWrongCount = "x5c-wrong-count"
            case certificateMalformed = "certificate-malformed"
            case chainUntrusted = "chain-untrusted"
            case certificateExpired = "certificate-expired"
            case leafOIDMissing = "leaf-oid-missing"
            case intermediateOIDMissing = "intermediate-oid-missing"
            case signatureInvalid = "signature-invalid"
            case payloadMalformed = "payload-malformed"
            case payloadInconsistent = "payload-inconsistent"
            case signedInFuture = "signed-in-future"
            case bundleIdMismatch = "bundle-id-mismatch"
            case environmentNotAccepted = "environment-not-accepted"
            case receiptMalformed = "receipt-malformed"
            case receiptUnsupportedAlgorithm = "receipt-unsupported-algorithm"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The verifier was configured with no usable trusted root, bundle id or environment.
        package static let configurationInvalid = Code(.configurationInvalid)
        /// Not a JWS compact serialization: wrong number of parts, bad base64url, a header that is not a JSON
        /// object, or a `crit` header this verifier does not understand.
        package static let jwsMalformed = Code(.jwsMalformed)
        /// The header's `alg` is not `ES256` (`none`, `HS256` and everything else are refused).
        package static let jwsUnsupportedAlgorithm = Code(.jwsUnsupportedAlgorithm)
        /// The header carries no `x5c` certificate array.
        package static let x5cMissing = Code(.x5cMissing)
        /// `x5c` does not hold exactly three certificates (leaf, intermediate, root).
        package static let x5cWrongCount = Code(.x5cWrongCount)
        /// An `x5c` entry is not standard base64 of a DER certificate.
        package static let certificateMalformed = Code(.certificateMalformed)
        /// The chain does not lead to a configured trusted root, or breaks RFC 5280 (signatures, basic constraints).
        package static let chainUntrusted = Code(.chainUntrusted)
        /// A certificate of the chain had expired, or was not yet valid, at the payload's `signedDate`.
        package static let certificateExpired = Code(.certificateExpired)
        /// The leaf lacks Apple's App Store receipt-signing extension (1.2.840.113635.100.6.11.1).
        package static let leafOIDMissing = Code(.leafOIDMissing)
        /// The intermediate lacks Apple's WWDR intermediate extension (1.2.840.113635.100.6.2.1).
        package static let intermediateOIDMissing = Code(.intermediateOIDMissing)
        /// The ES256 signature does not verify with the leaf's P-256 key.
        package static let signatureInvalid = Code(.signatureInvalid)
        /// The payload is not a JSON object, or lacks a required field, or a field has the wrong shape.
        package static let payloadMalformed = Code(.payloadMalformed)
        /// The payload is well formed but its values cannot be true: an `expiresDate` before the `purchaseDate`,
        /// a `purchaseDate` after the `signedDate`, or a transaction id that is empty, longer than 64 characters
        /// or outside ASCII letters, digits, `-`, `_` and `.`.
        package static let payloadInconsistent = Code(.payloadInconsistent)
        /// The payload's `signedDate` lies beyond the verifier's clock (plus the allowed skew).
        package static let signedInFuture = Code(.signedInFuture)
        /// The payload's `bundleId` is not this app's.
        package static let bundleIdMismatch = Code(.bundleIdMismatch)
        /// The payload's `environment` is not one this server accepts.
        package static let environmentNotAccepted = Code(.environmentNotAccepted)
        /// An app receipt is not the CMS SignedData Apple writes, or its payload breaks the receipt format or a bound
        /// (a length, a count, a date).
        package static let receiptMalformed = Code(.receiptMalformed)
        /// An app receipt is signed with a digest or signature algorithm other than SHA-1 or SHA-256 with RSA
        /// (PKCS #1 v1.5), or carries signed attributes.
        package static let receiptUnsupportedAlgorithm = Code(.receiptUnsupportedAlgorithm)

        /// The code as written in error bodies.
        package var description: String { value.rawValue }
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
