import DepotCore
import DepotLedger
import Logging

extension DeliveryContext {
    /// The latest a grant issued at `now` for a rental may last (`RentalTerms.grantBound`): no later than the
    /// rental's end as known now, nor than `now` plus its expiration period while its first delivery is not
    /// confirmed, so that no grant, and no edge's check of one, outlives the rental whenever its clock starts. Nil
    /// for a purchase that is not rented.
    package func rentalGrantBound(_ stored: LedgerTransaction, now: Int64) -> Int64? {
        stored.transaction.rental?.grantBound(
            purchaseDate: stored.transaction.purchaseDate, startedAt: stored.rentalStartedAt, now: now)
    }

    /// A rental whose clock has not started, presented again (a redeem, a restore) after Depot's own evidence says
    /// every bundle it was offered arrived, served in full at the origin, though the app never finished: its clock
    /// starts now, the moment Depot knows, so that an app that never finishes is not given the whole rental period.
    /// Anything else is returned as it is.
    package func startingRentalIfServed(_ stored: LedgerTransaction, now: Int64) async throws(DeliveryError) -> LedgerTransaction {
        guard stored.transaction.rental != nil, stored.rentalStartedAt == nil, stored.state == .pending else { return stored }
        let id = stored.transaction.id
        let statuses = try await ledgerCall { () async throws(LedgerError) in try await ledger.deliveries(transactionId: id) }
        guard evidence(of: stored, statuses: statuses) != .notDelivered else { return stored }
        let started = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.startRental(transactionId: id, reason: "every bundle served in full, unconfirmed", now: now)
        }
        guard started else {
            // Another request started it first: its time is the one recorded.
            return try await ledgerCall { () async throws(LedgerError) in try await ledger.transaction(id: id) } ?? stored
        }
        var updated = stored
        updated.rentalStartedAt = now
        logger.info("rental started by served bytes", metadata: ["transaction": "\(id)"])
        return updated
    }
}
