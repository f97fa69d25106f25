import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// A finish: the app confirms which bundles arrived; once they are everything its redeems offered, Depot
/// records the delivery, and the app (or Depot's outbox) finishes the transaction at its store.
package struct FinishFlow: Sendable {
    /// What the delivery flows share.
    package let context: DeliveryContext
    /// Who finishes a transaction at its store (by its store and environment).
    package let storeFinishMode: @Sendable (_ transaction: PurchaseTransaction) -> StoreFinishMode

    /// A finish flow.
    package init(
        context: DeliveryContext, storeFinishMode: @escaping @Sendable (_ transaction: PurchaseTransaction) -> StoreFinishMode
    ) {
        self.context = context
        self.storeFinishMode = storeFinishMode
    }

    /// One finish, as the app asks it.
    package struct Command: Sendable {
        /// The transaction.
        package var transactionId: String
        /// The finish token from the redeem answer.
        package var finishToken: String?
        /// The bundles the app confirms it received and unpacked.
        package var delivered: [ConfirmedDelivery]

        /// A finish command.
        package init(transactionId: String, finishToken: String?, delivered: [ConfirmedDelivery]) {
            self.transactionId = transactionId
            self.finishToken = finishToken
            self.delivered = delivered
        }
    }

    /// The finished transaction, who finishes it at its store, and the deliveries this finish confirmed.
    package struct Result: Sendable {
        /// The transaction, now finished.
        package var transaction: LedgerTransaction
        /// Who finishes it at its store.
        package var storeFinish: StoreFinishMode
        /// The bundles whose delivery this finish confirmed: the command's, when it finished the transaction;
        /// none when the transaction was finished before (a repeated finish confirms nothing new).
        package var confirmed: [ConfirmedDelivery] = []
    }

    /// Confirms delivery: judged against every bundle the redeems of this transaction offered
    /// (`DeliveryConfirmation`), never against the catalog of the moment. The finish token proves the caller
    /// redeemed; a wrong one is answered like an unknown transaction, so the answer reveals nothing.
    package func finish(_ command: Command) async throws(DeliveryError) -> Result {
        guard let token = command.finishToken else { throw .finishTokenRequired }
        let id = command.transactionId
        let ledger = context.ledger
        guard context.grants.isValidFinishToken(token, transactionId: id) else { throw .unknownTransaction }
        guard let stored = try await context.ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: id) })
        else { throw .unknownTransaction }
        let mode = storeFinishMode(stored.transaction)
        if stored.state == .finished {
            if mode == .server {
                // Finished before Depot finished at the store: the answer says Depot finishes it there, so make
                // it true (nothing when a job exists).
                let now = context.clock()
                _ = try await context.ledgerCall { () async throws(LedgerError) in
                    try await ledger.enqueueAppleFinish(transactionId: id, now: now)
                }
            }
            return try await confirmingLateDelivery(stored, command: command, storeFinish: mode)
        }
        // Judged by the type it was redeemed under: a product whose type changed since cannot make a bought
        // non-consumable finish as a consumable, or the reverse.
        let isConsumable = stored.judgedType(in: context.catalog) == .consumable
        let requiresDelivery: Bool
        if isConsumable {
            requiresDelivery = true
        } else {
            requiresDelivery = try await entitlesContent(stored)
        }
        let now = context.clock()
        let outcome = try await context.ledgerCall { () async throws(LedgerError) in
            // The outbox job commits with the delivery: a recorded finish is always finished at the store in the end.
            try await ledger.finish(
                transactionId: id, claims: command.delivered, requiresDelivery: requiresDelivery,
                enqueueAppleFinish: mode == .server, now: now)
        }
        switch outcome {
        case .finished(let firstTime):
            var finished = stored
            finished.state = .finished
            if stored.transaction.rental != nil, firstTime {
                // The finish started the rental's clock: the answer carries the end it set.
                finished =
                    try await context.ledgerCall { () async throws(LedgerError) in try await ledger.transaction(id: id) } ?? finished
            }
            // A consumable's grants work until its transaction is finished.
            if isConsumable { context.revocations.revoke(id) }
            context.logger.info(
                "transaction finished",
                metadata: ["transaction": "\(id)", "storeFinish": "\(mode.rawValue)", "delivered": "\(command.delivered.count)"])
            return Result(transaction: finished, storeFinish: mode, confirmed: firstTime ? command.delivered : [])
        case .mismatch(let missing, let wrongDigest):
            throw .deliveryMismatch(missing: missing, wrongDigest: wrongDigest)
        case .unknownTransaction:
            throw .unknownTransaction
        case .nothingOffered:
            throw .nothingDelivered
        }
    }

    /// A finish of a transaction finished before: nothing new, except for a rental finished with nothing delivered
    /// (its content was not offered yet), whose clock has not started: a finish confirming every bundle offered since
    /// records that delivery and starts the clock now (`Ledger.finish` on a finished transaction), so the buyer is not
    /// left the whole rental period from the purchase. A finish that does not confirm them changes nothing.
    func confirmingLateDelivery(
        _ stored: LedgerTransaction, command: Command, storeFinish mode: StoreFinishMode
    ) async throws(DeliveryError) -> Result {
        guard stored.transaction.rental != nil, stored.rentalStartedAt == nil, !command.delivered.isEmpty else {
            return Result(transaction: stored, storeFinish: mode)
        }
        let id = stored.transaction.id
        let ledger = context.ledger
        let now = context.clock()
        let outcome = try await context.ledgerCall { () async throws(LedgerError) in
            try await ledger.finish(
                transactionId: id, claims: command.delivered, requiresDelivery: true, enqueueAppleFinish: false, now: now)
        }
        guard case .finished = outcome,
            let updated = try await context.ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: id) }),
            updated.rentalStartedAt != nil
        else { return Result(transaction: stored, storeFinish: mode) }
        context.logger.info("rental started by a finish after the first", metadata: ["transaction": "\(id)"])
        return Result(transaction: updated, storeFinish: mode, confirmed: command.delivered)
    }

    /// Whether the purchase entitles some content now (whether or not this instance can serve it): then a finish
    /// with nothing offered is refused, since content exists that was not delivered (a redeem refused while a bundle
    /// could not be served offers nothing). Only a purchase that entitles nothing (a subscription period without
    /// issues, a product without content) finishes with nothing delivered. A purchase the rules refuse (revoked, a
    /// finished consumable) entitles nothing here: the finish is judged as before.
    /// A pre-order whose content is not released yet entitles it all the same: finished now, it would be finished
    /// with nothing delivered.
    func entitlesContent(_ stored: LedgerTransaction) async throws(DeliveryError) -> Bool {
        if context.preOrderAvailableFrom(stored, now: context.clock()) != nil { return true }
        do {
            let audience = try await context.audience(of: stored)
            return try await !context.entitledContents(stored, audience: audience).isEmpty
        } catch .ledgerUnavailable {
            throw .ledgerUnavailable
        } catch .unknownProduct {
            // A product this instance's catalog does not list yet (it lags another's): its content cannot be judged
            // here, so nothing offered is not taken for nothing to deliver.
            return true
        } catch {
            return false
        }
    }
}
