/// The one shape Depot accepts for a content version's name, wherever a version enters: a publisher's request
/// (`POST .../versions`, the `{version}` of a version route), a tus upload's `version` metadata, `pack.json` and
/// `depot publish --version`.
///
/// 1-64 printable ASCII characters without a space or `/`, and not starting with `.`: so never `.` or `..` (which a
/// URL path resolves away, leaving a version the console could not publish, halt or delete) nor a hidden name, the
/// same as the ``Identifier`` rule for product ids.
package enum VersionName {
    /// The longest version name accepted, in bytes.
    package static let maximumLength = 64

    /// The rule in words, for error messages.
    package static let rule = "1-64 printable ASCII characters without spaces or '/', not starting with '.'"

    /// Whether `version` follows the rule.
    package static func isAcceptable(_ version: String) -> Bool {
        let bytes = version.utf8
        guard let first = bytes.first, first != 0x2E, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }
    }
}
