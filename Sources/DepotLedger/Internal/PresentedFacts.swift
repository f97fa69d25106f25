import DepotCore

/// What a signed transaction presented again (at a redeem, a restore or in a notification) changes in the
/// ledger's record of it. Pure, so both engines apply the same rule.
///
/// - A known revocation is never undone by a presented transaction; only `setRevocation` clears one.
/// - A presented transaction signed no later than the last fact applied (a REFUND or REFUND_REVERSED
///   notification, or an earlier presented revocation) is stale: it changes neither the revocation nor the
///   expiry, so an old JWS kept by a device cannot override what Apple said since.
/// - A revocation the presented transaction brings becomes the last fact, at its signedDate; so does a refund of
///   part of it (`PurchaseRevocation`, already settled by `RefundRules`), which a later full one replaces.
struct PresentedFacts: Equatable {
    var revocationDate: Int64?
    var revocation: PurchaseRevocation? = nil
    var expiresDate: Int64?
    var lastFactSignedDate: Int64?

    /// Whether the presented transaction is older than the last fact applied.
    static func isStale(_ presented: PurchaseTransaction, lastFactSignedDate: Int64?) -> Bool {
        guard let signed = presented.signedDate, let last = lastFactSignedDate else { return false }
        return signed <= last
    }

    /// The record after `presented` is merged into what is `known`.
    static func merge(known: PresentedFacts, presented: PurchaseTransaction) -> PresentedFacts {
        if isStale(presented, lastFactSignedDate: known.lastFactSignedDate) { return known }
        var merged = known
        merged.expiresDate = presented.expiresDate ?? known.expiresDate
        if known.revocationDate == nil, let revocation = presented.revocationDate {
            merged.revocationDate = revocation
            merged.revocation = presented.revocation
            // Not stale, so its signedDate (when known) is newer than the last fact.
            merged.lastFactSignedDate = presented.signedDate ?? known.lastFactSignedDate
        } else if known.revocationDate == nil, let partial = presented.revocation, !partial.sameRefund(as: known.revocation) {
            merged.revocation = partial
            merged.lastFactSignedDate = presented.signedDate ?? known.lastFactSignedDate
        }
        return merged
    }

    /// The last fact's date for a transaction seen for the first time.
    static func firstSight(_ presented: PurchaseTransaction) -> Int64? {
        presented.revocationDate == nil && presented.revocation == nil ? nil : presented.signedDate
    }
}

extension PurchaseRevocation {
    /// Whether `other` states the same refund (type, percentage, units), whenever it was learnt: a purchase presented
    /// again with a refund already recorded changes nothing.
    func sameRefund(as other: PurchaseRevocation?) -> Bool {
        guard let other else { return false }
        return kind == other.kind && percentage == other.percentage && revokedQuantity == other.revokedQuantity
    }
}
