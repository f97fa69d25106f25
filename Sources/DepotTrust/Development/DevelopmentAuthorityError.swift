import DepotCore

/// Why the development certificate authority could not be loaded, made or used.
///
/// Messages name the file involved (`leaf-key.pem`), never the directory, a key or a token.
package struct DevelopmentAuthorityError: CodedError, Sendable, Equatable {
    /// A stable reason code.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case storageFailed = "dev-ca-storage-failed"
            case filesInvalid = "dev-ca-files-invalid"
            case signingFailed = "dev-ca-signing-failed"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A file or directory could not be read, written or renamed.
        package static let storageFailed = Code(.storageFailed)
        /// The directory holds files that are missing, unreadable as PEM, or do not form one chain with the key.
        package static let filesInvalid = Code(.filesInvalid)
        /// A certificate or a payload could not be encoded or signed.
        package static let signingFailed = Code(.signingFailed)

        /// The code as written in messages.
        package var description: String { value.rawValue }
    }

    /// The reason.
    package let code: Code
    /// A message for people.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
