import DepotCore

extension PurchaseRevocation {
    /// `refundProrated 33333 milliunits, 1 of 3 units revoked`, for the audit trail.
    func auditDetail(quantity: Int) -> String {
        let share = percentage.map { " \($0) milliunits," } ?? ""
        return "\(kind.rawValue)\(share) \(revokedQuantity) of \(quantity) units revoked"
    }
}
