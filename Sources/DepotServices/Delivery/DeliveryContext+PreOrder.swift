import DepotCore
import DepotLedger

extension DeliveryContext {
    /// When a pre-order's content becomes available (seconds since 1970): for a one-time product (consumable or
    /// non-consumable) that has no content current at `now` and a version scheduled for later, its publication
    /// time; nil otherwise. Such a purchase, bought before the release (a Play pre-order, or an App Store
    /// pre-order, which arrives as an ordinary transaction at release), is redeemed with no downloads and cannot
    /// be finished until the app received the content after the release.
    package func preOrderAvailableFrom(_ stored: LedgerTransaction, now: Int64) -> Int64? {
        let catalog = catalog
        guard let type = stored.judgedType(in: catalog), type == .consumable || type == .nonConsumable else { return nil }
        let productId = stored.transaction.productId
        guard catalog.currentContents(of: productId, at: now).isEmpty else { return nil }
        return catalog.nextPublication(of: productId, after: now)
    }
}
