/// The `event` names the ledger writes into the audit trail, shared by both engines.
enum AuditEventKind {
    /// A transaction seen for the first time.
    static let redeemed = "redeemed"
    /// Grants handed out for some of a transaction's deliveries.
    static let grantsIssued = "grants-issued"
    /// Delivery confirmed and the transaction finished (written once).
    static let finished = "finished"
    /// A revocation learnt, from a signed transaction or from `setRevocation`.
    static let revoked = "revoked"
    /// A refund that left units (or, under a `keep` policy, the content): its type, percentage and units revoked.
    static let refunded = "refunded"
    /// A revocation cleared by `setRevocation(revokedAt: nil)` (e.g. REFUND_REVERSED).
    static let revocationCleared = "revocation-cleared"
    /// A renewal or refresh moved the transaction's expiry.
    static let expiryUpdated = "expiry-updated"
    /// A rental's consumption started: its first confirmed delivery (written once).
    static let rentalStarted = "rental-started"
    /// A notification that concerns the transaction arrived (written once per notification UUID).
    static let notification = "notification"
}
