import DepotCore

/// Why a pack directory could not be staged as a version. Nothing is recorded when staging fails.
package struct StageError: CodedError, Sendable {
    /// What went wrong, as a stable code.
    package enum Code: String, Sendable, CustomStringConvertible {
        /// The pack is not valid (layout, manifest, limits, links); the message says what.
        case invalidPack = "invalid-pack"
        /// The pack's manifest names another product, content or version than the request.
        case packMismatch = "pack-mismatch"
        /// The product is not in the catalog.
        case unknownProduct = "unknown-product"
        /// Another pack is already recorded at this version of this content.
        case versionExists = "version-exists"
        /// The content id belongs to another product.
        case contentOwned = "content-owned-by-other-product"
        /// The content id lies outside the scope of the publisher key that asked.
        case contentOutOfScope = "content-out-of-scope"
        /// The bundle could not be built or kept, or the ledger could not be reached.
        case unavailable = "unavailable"

        /// The stable string form, e.g. `"version-exists"`.
        package var description: String { rawValue }
    }

    /// The code.
    package let code: Code
    /// What happened, for people.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
