import DepotCore
import DepotLedger

extension DeliveryContext {
    /// The latest a grant issued at `now` for a rental may last (`RentalTerms.grantBound`): no later than the
    /// rental's end as known now, nor than `now` plus its expiration period while its first delivery is not
    /// confirmed, so that no grant, and no edge's check of one, outlives the rental whenever its clock starts. Nil
    /// for a purchase that is not rented.
    package func rentalGrantBound(_ stored: LedgerTransaction, now: Int64) -> Int64? {
        stored.transaction.rental?.grantBound(
            purchaseDate: stored.transaction.purchaseDate, startedAt: stored.rentalStartedAt, now: now)
    }
}
