/// The shape a transaction id must have before Depot keys grants, ledger rows and URLs by it.
///
/// App Store ids are decimal digits, and so are the development builder's; anything else that is short and made
/// of ASCII letters, digits, `-`, `_` and `.` is let through so that a future id format does not break delivery.
/// An empty id is refused: grants issued under it could never be revoked.
package enum TransactionIdentifier {
    /// The longest id accepted, in characters.
    package static let maximumLength = 64

    /// Whether `id` is non-empty, at most ``maximumLength`` bytes, and only ASCII letters, digits, `-`, `_`, `.`.
    package static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E: true
            default: false
            }
        }
    }
}
