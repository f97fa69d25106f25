import DepotCore

/// A transaction as the ledger holds it.
package struct LedgerTransaction: Sendable, Equatable {
    /// The verified transaction (with the latest revocation known).
    package var transaction: PurchaseTransaction
    /// Whether delivery was confirmed and the transaction finished.
    package var state: DeliveryState
    /// When it was first redeemed (seconds since 1970).
    package var firstSeenAt: Int64
    /// When it was finished, if it was.
    package var finishedAt: Int64?
    /// The product's type when the transaction was first recorded: the type it is judged by for good
    /// (`Catalog.judgedType`). Nil for a transaction recorded before the ledger kept types, or whose product
    /// was not in the catalog then: judged by the catalog's type of the moment.
    package var productType: ProductType?
    /// For a rental, when its consumption started: its first confirmed delivery (seconds since 1970); nil until
    /// then, and for a purchase that is not rented.
    package var rentalStartedAt: Int64?

    /// Creates a record.
    package init(
        transaction: PurchaseTransaction, state: DeliveryState, firstSeenAt: Int64, finishedAt: Int64?,
        productType: ProductType? = nil
    ) {
        self.transaction = transaction
        self.state = state
        self.firstSeenAt = firstSeenAt
        self.finishedAt = finishedAt
        self.productType = productType
    }

    /// For a rental, when it ends as known now (seconds since 1970; `RentalTerms.endsAt`): the purchase plus its
    /// rental period, or its first confirmed delivery plus its expiration period when that is earlier. Nil for a
    /// purchase that is not rented.
    package var rentalEndsAt: Int64? {
        transaction.rental?.endsAt(purchaseDate: transaction.purchaseDate, startedAt: rentalStartedAt)
    }

    /// The type this transaction is judged by in `catalog`: the one it was recorded under, else the catalog's.
    package func judgedType(in catalog: Catalog) -> ProductType? {
        catalog.judgedType(productId: transaction.productId, recorded: productType)
    }
}

/// `pending` until the app confirmed delivery, then `finished` (the contract's `state`).
package enum DeliveryState: String, Sendable, Equatable {
    /// Redeemed, not yet confirmed.
    case pending
    /// Confirmed and finished.
    case finished
}

/// A content with the bundle handed out for it (a redeem's offer): the delivery rule's own type.
package typealias PlannedDelivery = DeliveryConfirmation.Offer

/// A content the app says it received, with the digest it checked: the delivery rule's own type.
package typealias ConfirmedDelivery = DeliveryConfirmation.Claim

/// The result of a finish.
package enum FinishOutcome: Sendable, Equatable {
    /// The transaction is finished; `firstTime` is false when it already was.
    case finished(firstTime: Bool)
    /// Some expected content was not confirmed, or confirmed with another digest; nothing changed.
    case mismatch(missing: [String], wrongDigest: [String])
    /// The transaction is not known.
    case unknownTransaction
    /// Nothing was ever offered for a transaction that must deliver something (a consumable); nothing changed.
    case nothingOffered
}

/// A verified App Store Server Notification as recorded.
package struct NotificationRecord: Sendable, Equatable {
    /// The notification's UUID.
    package var uuid: String
    /// `REFUND`, `DID_RENEW`, ...
    package var type: String
    /// The subtype, if any.
    package var subtype: String?
    /// The transaction it concerns, if any.
    package var transactionId: String?

    /// Creates a record.
    package init(uuid: String, type: String, subtype: String?, transactionId: String?) {
        self.uuid = uuid
        self.type = type
        self.subtype = subtype
        self.transactionId = transactionId
    }
}

/// What is known of one delivery (transaction × content × version).
package struct DeliveryStatus: Sendable, Equatable {
    /// The transaction.
    package var transactionId: String
    /// The content, version and bundle.
    package var delivery: PlannedDelivery
    /// How many times grants were handed out for it.
    package var grantsIssued: Int
    /// Bytes of the bundle served at least once, merged across requests.
    package var bytesCovered: Int64
    /// When the app confirmed it, if it did.
    package var confirmedAt: Int64?
    /// The last grant or byte served (seconds since 1970).
    package var lastActivityAt: Int64
    /// When the store takes the purchase back if nobody completed it (seconds since 1970): Google Play refunds a
    /// purchase not acknowledged within three days of its purchase time. Nil for the App Store.
    package var storeDeadline: Int64?

    /// Creates a status.
    package init(
        transactionId: String, delivery: PlannedDelivery, grantsIssued: Int, bytesCovered: Int64,
        confirmedAt: Int64?, lastActivityAt: Int64, storeDeadline: Int64? = nil
    ) {
        self.transactionId = transactionId
        self.delivery = delivery
        self.grantsIssued = grantsIssued
        self.bytesCovered = bytesCovered
        self.confirmedAt = confirmedAt
        self.lastActivityAt = lastActivityAt
        self.storeDeadline = storeDeadline
    }
}

/// One entry of the audit trail.
package struct AuditEvent: Sendable, Equatable {
    /// Position in the ledger's audit log: increasing, for paging.
    package var sequence: Int64
    /// Seconds since 1970.
    package var at: Int64
    /// The transaction concerned.
    package var transactionId: String
    /// `redeemed`, `grants-issued`, `finished`, `revoked`, `revocation-cleared`, `notification`, ...
    package var event: String
    /// Details for people.
    package var detail: String

    /// Creates an event.
    package init(sequence: Int64 = 0, at: Int64, transactionId: String, event: String, detail: String) {
        self.sequence = sequence
        self.at = at
        self.transactionId = transactionId
        self.event = event
        self.detail = detail
    }
}

/// What recording one redemption found: the transaction as stored now, the attempt before this one, and the
/// transaction's distinct redeemers within the window asked for (this attempt included).
package struct RecordedRedemption: Sendable, Equatable {
    /// The transaction as the ledger holds it now.
    package var transaction: LedgerTransaction
    /// When the previous redemption attempt was made, if there was one.
    package var previousAttempt: Int64?
    /// Distinct account tokens and addresses within the window.
    package var activity: RedemptionActivity

    /// A recorded redemption.
    package init(transaction: LedgerTransaction, previousAttempt: Int64?, activity: RedemptionActivity) {
        self.transaction = transaction
        self.previousAttempt = previousAttempt
        self.activity = activity
    }
}

/// Distinct redeemers of one transaction within a window.
package struct RedemptionActivity: Sendable, Equatable {
    /// Distinct app account tokens.
    package var appAccountTokens: Int
    /// Distinct client addresses.
    package var clientAddresses: Int

    /// Creates activity counts.
    package init(appAccountTokens: Int, clientAddresses: Int) {
        self.appAccountTokens = appAccountTokens
        self.clientAddresses = clientAddresses
    }
}

/// A transaction whose redemptions look like sharing.
package struct IrregularTransaction: Sendable, Equatable {
    /// The transaction.
    package var transactionId: String
    /// Distinct redeemers within the window.
    package var activity: RedemptionActivity
    /// The latest attempt (seconds since 1970).
    package var lastAttemptAt: Int64

    /// Creates a record.
    package init(transactionId: String, activity: RedemptionActivity, lastAttemptAt: Int64) {
        self.transactionId = transactionId
        self.activity = activity
        self.lastAttemptAt = lastAttemptAt
    }
}

/// A ledger failure: the engine could not be reached or refused the operation.
package struct LedgerError: CodedError, Sendable {
    /// What kind of failure it was: callers switch on it, never on the message.
    package enum Code: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        /// The engine could not be reached or refused the operation (disconnected, I/O error, shut down).
        case unavailable
        /// The engine was reachable but another operation held what this one needed past its wait (SQLite's
        /// busy file, PostgreSQL's lock timeout, a serialization failure or a deadlock).
        case busy
        /// The stored data is damaged or not what the ledger wrote.
        case corrupt
        /// The schema could not be brought to the version this build expects.
        case migration
        /// A transaction presented again is not the purchase recorded under its id.
        case conflict = "transaction-conflict"
        /// The engine refused a write that breaks one of the schema's constraints (a defect: the ledger's own
        /// writes check first).
        case constraint

        /// The stable string form.
        package var description: String { rawValue }
    }

    /// What kind of failure it was.
    package let code: Code
    /// What happened, for operators (never sent to clients).
    package let message: String
    /// The engine's own code, when the engine gave one: PostgreSQL's SQLSTATE (`40001`), SQLite's result code
    /// (`SQLITE_BUSY`).
    package let engineCode: String?
    /// The error the engine or its driver threw, when there was one.
    package let cause: (any Error & Sendable)?

    /// Creates an error.
    package init(_ code: Code, message: String, engineCode: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.engineCode = engineCode
        self.cause = cause
    }
}

/// Where a delivery sits in the unfinished list: the position a page continues after.
package struct DeliveryKey: Sendable, Equatable, Codable {
    /// The transaction.
    package var transactionId: String
    /// The content.
    package var contentId: String
    /// The version.
    package var version: String

    /// Creates a key.
    package init(transactionId: String, contentId: String, version: String) {
        self.transactionId = transactionId
        self.contentId = contentId
        self.version = version
    }
}

/// How far one version of a content reached, from the delivery records.
package struct VersionReach: Sendable, Equatable {
    /// The content.
    package var contentId: String
    /// The version.
    package var version: String
    /// The purchases a redeem or restore offered it to.
    package var offered: Int64
    /// The purchases whose app confirmed its delivery (a finish).
    package var delivered: Int64

    /// A version's reach.
    package init(contentId: String, version: String, offered: Int64, delivered: Int64) {
        self.contentId = contentId
        self.version = version
        self.offered = offered
        self.delivered = delivered
    }
}
