/// The one shape Depot accepts for the identifiers it keys ledger rows, URLs, grants and an app's folders by:
/// transaction ids, product ids and content ids.
///
/// Non-empty, at most a given number of bytes, only ASCII letters, digits, `-`, `_` and `.`, and not starting
/// with `.`: so never a path separator, a space, `.` or `..`, nor a hidden folder's name (an app installs a
/// content under a folder named by its id).
package enum Identifier {
    /// The longest product or content id accepted, in bytes: an app keeps a download beside its folder as
    /// `<content id>.<digest>.partial.etag` (78 bytes more), which must stay within a file name's 255 bytes.
    package static let maximumCatalogLength = 128

    /// The rule in words, for error messages: "1-128 letters, digits, ...".
    package static func rule(maximumLength: Int = maximumCatalogLength) -> String {
        "1-\(maximumLength) ASCII letters, digits, '.', '_' and '-', not starting with '.'"
    }

    /// Whether `id` follows the rule with at most `maximumLength` bytes.
    package static func isAcceptable(_ id: String, maximumLength: Int = maximumCatalogLength) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first, first != 0x2E, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E: true
            default: false
            }
        }
    }
}
