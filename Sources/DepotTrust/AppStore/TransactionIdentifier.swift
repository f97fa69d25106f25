// The libFuzzer builds of `Fuzz/run.sh` compile DepotCore's `Identifier` into the same module as these sources.
#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

/// The shape a transaction id must have before Depot keys grants, ledger rows and URLs by it: the
/// ``Identifier`` rule, at most ``maximumLength`` bytes.
///
/// App Store ids are decimal digits, and so are the development builder's; anything else that is short and made
/// of ASCII letters, digits, `-`, `_` and `.` (not first) is let through so that a future id format does not
/// break delivery. An empty id is refused: grants issued under it could never be revoked.
package enum TransactionIdentifier {
    /// The longest id accepted, in characters.
    package static let maximumLength = 64

    /// The rule in words, for error messages.
    package static let rule = Identifier.rule(maximumLength: maximumLength)

    /// Whether `id` follows the ``Identifier`` rule with at most ``maximumLength`` bytes.
    package static func isAcceptable(_ id: String) -> Bool {
        Identifier.isAcceptable(id, maximumLength: maximumLength)
    }
}
