/// What a prorated refund of a product that is not counted in units (a non-consumable, a subscription) does,
/// configured per product (`refunds.prorated` in `products.json`).
public enum ProratedRefundPolicy: String, Sendable, Equatable, Codable, CaseIterable {
    /// Revoke the content, as Apple advises ("revoke any content that was granted"): the default.
    case revoke
    /// Keep the content and record the refund (type, percentage and time in the audit and the answers).
    case keep
}
