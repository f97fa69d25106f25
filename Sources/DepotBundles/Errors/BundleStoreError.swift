import DepotCore
import DepotSystem

/// A failure writing a bundle or the store's index: an I/O problem on the server's side, not the pack's.
///
/// The message names the operation and the system's reason, never a path, so it can reach a log or an
/// HTTP answer as it is.
package struct BundleStoreError: CodedError, Equatable {
    /// A stable, machine-readable reason.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case io = "io"
            case badRoot = "bad-root"
            case replica = "replica"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A system call failed while writing a bundle or the index.
        package static let io = Code(.io)
        /// The store's root is not a usable directory.
        package static let badRoot = Code(.badRoot)
        /// The shared copy of the bundles (the object store) could not be written or read, or held wrong bytes.
        package static let replica = Code(.replica)

        /// The stable string form, e.g. `"io"`.
        package var rawValue: String { base.rawValue }
        /// The same as `rawValue`.
        package var description: String { base.rawValue }
    }

    /// The stable reason.
    package let code: Code
    /// A sentence for people: the operation and the system's reason.
    package let message: String
    /// The `errno` behind an I/O failure, when there was one.
    package let systemErrorCode: Int32?

    /// An error with this code and message.
    package init(_ code: Code, _ message: String, systemErrorCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemErrorCode = systemErrorCode
    }

    init(_ what: String, _ error: SystemCallError) {
        self.init(.io, "\(what): \(error)", systemErrorCode: error.code)
    }

}
