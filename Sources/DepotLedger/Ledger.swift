import DepotCore

/// The durable record of transactions and deliveries: what was redeemed, which grants were handed out,
/// which bytes were served, which deliveries the app confirmed, which notifications arrived, and an
/// audit trail of every state change.
///
/// Two engines implement it: SQLite (the embedded default) and PostgreSQL (several Depot instances
/// sharing the work). Every method is one transaction in the engine: it either happens whole or not at
/// all, and a method that returns has made its change durable.
package protocol Ledger: CatalogLedger, PublisherKeyLedger, UploadLedger, VersionJobLedger, StoreOutboxLedger, LeaseLedger {
    /// Records a verified transaction, or refreshes a known one (a renewal, a revocation learnt later).
    /// A known revocation is never undone by a redemption; only `setRevocation` changes it.
    /// `productType` is the product's type in the catalog the caller judges by: recorded with a transaction seen
    /// for the first time as the type it is judged by for good, and ignored for a known one (never replaced, and
    /// never added to one recorded without a type).
    /// Returns the stored state.
    func recordTransaction(
        _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(LedgerError) -> LedgerTransaction

    /// One transaction, if known.
    func transaction(id: String) async throws(LedgerError) -> LedgerTransaction?

    /// Every known transaction sharing an original transaction id (a subscription's renewals).
    func transactions(originalId: String) async throws(LedgerError) -> [PurchaseTransaction]

    /// Every known purchase of a product under one app account token (non-renewing purchases that stack).
    func transactions(productId: String, appAccountToken: String) async throws(LedgerError) -> [PurchaseTransaction]

    /// The transactions whose store-signed app account token (Apple's `appAccountToken`, Google Play's
    /// `obfuscatedAccountId`; never the account an app claims at a redeem, which redemption attempts keep) is
    /// `appAccountToken`, compared without case: newest purchase first (then by id, descending), at most `limit`.
    func transactions(appAccountToken: String, limit: Int) async throws(LedgerError) -> [LedgerTransaction]

    /// Records a redemption attempt of a known transaction without presenting it again (a restore by account, which
    /// reads the transaction from the ledger): reads the attempt before this one, records this one under
    /// `appAccountToken` and `client`, and reads the transaction's activity since `activitySince` (this attempt
    /// included). Nil, recording nothing, when the transaction is unknown.
    func recordAttempt(
        transactionId: String, appAccountToken: String?, client: String, activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption?

    /// Sets or clears (both nil) a transaction's revocation, e.g. on REFUND, REVOKE or REFUND_REVERSED.
    /// `revokedAt` is in milliseconds since 1970, like every App Store date: set, every unit is revoked; nil with a
    /// `revocation` (settled by `RefundRules`), part of it was refunded and the rest still entitles. `revocation`
    /// records the refund's type, percentage and units, and is cleared with it. With `signedAt` (the fact's App
    /// Store signedDate), the change applies only when it is newer than the last fact applied to the
    /// transaction, so notifications arriving out of order (Apple's retries keep their signedDate) never
    /// undo a newer fact; nil applies it unconditionally. Returns false when the transaction is unknown.
    func setRevocation(
        transactionId: String, revokedAt: Int64?, revocation: PurchaseRevocation?, reason: String, signedAt: Int64?, now: Int64
    )
        async throws(LedgerError) -> Bool

    /// Revokes a transaction that is not revoked yet (a conditional update: of two callers racing, one revokes);
    /// false when it is unknown or already revoked. `revokedAt` is in milliseconds since 1970. A `revocation` of
    /// fewer units than the transaction's quantity revokes those units only, and only when they are more than those
    /// already revoked (false otherwise); one of every unit revokes the transaction, recording its type.
    func revokeIfNotRevoked(
        transactionId: String, revokedAt: Int64, revocation: PurchaseRevocation?, reason: String, now: Int64
    ) async throws(LedgerError) -> Bool

    /// Ids of every revoked transaction, for the origin's in-memory grant check.
    func revokedTransactionIds() async throws(LedgerError) -> Set<String>

    /// Ids of consumables finished at or after `finishedSince` (seconds since 1970), whose grants, issued within
    /// the grant lifetime, must stop working: transactions recorded as consumables, and those recorded without a
    /// type whose product is one of `catalogConsumables` (the catalog's consumable products).
    func finishedConsumableIds(catalogConsumables: [String], finishedSince: Int64) async throws(LedgerError) -> Set<String>

    /// Records that grants were handed out for these deliveries of a transaction, and each as an offer.
    func recordGrants(transactionId: String, deliveries: [PlannedDelivery], now: Int64) async throws(LedgerError)

    /// Every bundle a redeem offered for the transaction (full or delta), sorted by content, version, digest:
    /// what a finish is judged against.
    func offers(transactionId: String) async throws(LedgerError) -> [PlannedDelivery]

    /// How far each version of a product's contents reached: the purchases it was offered to, and those whose app
    /// confirmed its delivery, from the delivery records.
    func versionReach(productId: String) async throws(LedgerError) -> [VersionReach]

    /// Records bytes served at the origin, all in one ledger transaction: each range merges into the coverage of its
    /// transaction's bundle (its requests and bytes sent added, its first and last times widening the row's), in any
    /// order to the same result. Nothing is recorded when it fails. A caller with many ranges of one bundle merges them
    /// first (`ServedRange.coalesced`).
    ///
    /// A (transaction, bundle) keeps at most `ServedRange.storedIntervalLimit` intervals: a range that touches none of
    /// them when it holds that many is left out of its coverage (its request and bytes sent still counted), so that
    /// coverage only ever under-states what was served; a range touching a stored interval is always merged, so a
    /// download that ends with the whole bundle ends fully covered. Returns how many ranges were left out.
    @discardableResult
    func recordServed(_ ranges: [ServedRange]) async throws(LedgerError) -> Int

    /// Confirms delivery and finishes the transaction when the app's claims confirm every content its
    /// redeems offered (`DeliveryConfirmation`, judged against the offers read in the same ledger transaction
    /// as the update). Nothing changes unless the whole confirmation is right. Repeating a finish is harmless.
    /// `requiresDelivery` (consumables) refuses a finish when nothing was ever offered.
    /// With `enqueueAppleFinish`, the finish that moves the transaction to `finished` also enqueues, in the same
    /// ledger transaction, an outbox job that sends Finish Transaction to the App Store (once per transaction).
    func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, enqueueAppleFinish: Bool, now: Int64
    ) async throws(LedgerError) -> FinishOutcome

    /// Records a notification by its UUID; false when it was already recorded (idempotency). With
    /// `enqueueConsumption` (a CONSUMPTION_REQUEST while the App Store Server API is configured), a new one also
    /// enqueues, in the same ledger transaction, a Send Consumption Information job for its transaction when the
    /// customer's consent is recorded (again after an earlier one was settled), or audits why nothing is sent.
    func recordNotification(
        _ notification: NotificationRecord, enqueueConsumption: Bool, now: Int64
    )
        async throws(LedgerError) -> Bool

    /// When the latest notification was recorded (seconds since 1970), nil when none was: where a backfill
    /// from the App Store's notification history starts.
    func lastNotificationRecordedAt() async throws(LedgerError) -> Int64?

    /// Deliveries of unfinished transactions whose last activity is older than `before`, ordered by
    /// transaction, content and version: at most `limit` of them, starting after the key `after`.
    func unfinished(before: Int64, after: DeliveryKey?, limit: Int) async throws(LedgerError) -> [DeliveryStatus]

    /// How many Google Play purchases not completed at Google (nobody confirmed the delivery, or Depot's
    /// acknowledgement is still waiting or failed), not revoked, were bought between the two times
    /// (milliseconds since 1970): those whose three-day acknowledgement deadline falls in a window.
    func pendingGooglePlayPurchases(purchasedFrom: Int64, until: Int64) async throws(LedgerError) -> Int

    /// What is known of one transaction's deliveries.
    func deliveries(transactionId: String) async throws(LedgerError) -> [DeliveryStatus]

    /// Starts a rental's clock at `now` (seconds since 1970) when it has not started, auditing `reason`; true when
    /// this call started it. A transaction that is not a rental, or whose clock started, is left as it is.
    func startRental(transactionId: String, reason: String, now: Int64) async throws(LedgerError) -> Bool

    /// The audit trail of one transaction, oldest first: at most `limit` events with a sequence number
    /// greater than `afterSequence`.
    func auditTrail(transactionId: String, afterSequence: Int64, limit: Int) async throws(LedgerError) -> [AuditEvent]

    /// Transactions redeemed since `since` by more than `maxAccountTokens` distinct app account tokens or
    /// from more than `maxClientAddresses` distinct addresses, most distinct redeemers first.
    /// At most `limit` of them, skipping the first `offset`.
    func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int, offset: Int, limit: Int
    ) async throws(LedgerError) -> [IrregularTransaction]

    /// Records a redemption (a redeem, or one purchase of a restore) in one transaction: reads the attempt before
    /// this one, records this attempt's account token and client address and the transaction (first seen with
    /// `productType`), and counts the distinct redeemers since `activitySince`, this attempt included.
    func recordRedemption(
        _ transaction: PurchaseTransaction, productType: ProductType?, appAccountToken: String?, client: String,
        activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption

    /// Closes the engine once its work is done: a SQLite file's connections, or the PostgreSQL client the ledger
    /// started (a client whose run loop its owner drives is left to the owner). Calls after it fail.
    func close() async throws(LedgerError)
}

extension Ledger {
    /// Sets or clears a transaction's revocation with no refund detail (see the requirement).
    package func setRevocation(
        transactionId: String, revokedAt: Int64?, reason: String, signedAt: Int64?, now: Int64
    ) async throws(LedgerError) -> Bool {
        try await setRevocation(
            transactionId: transactionId, revokedAt: revokedAt, revocation: nil, reason: reason, signedAt: signedAt, now: now)
    }

    /// Revokes every unit of a transaction not revoked yet, with no refund detail (see the requirement).
    package func revokeIfNotRevoked(
        transactionId: String, revokedAt: Int64, reason: String, now: Int64
    ) async throws(LedgerError) -> Bool {
        try await revokeIfNotRevoked(transactionId: transactionId, revokedAt: revokedAt, revocation: nil, reason: reason, now: now)
    }

    /// Records a notification by its UUID, enqueueing nothing; false when it was already recorded.
    package func recordNotification(_ notification: NotificationRecord, now: Int64) async throws(LedgerError) -> Bool {
        try await recordNotification(notification, enqueueConsumption: false, now: now)
    }

    /// Confirms delivery and finishes the transaction without an App Store outbox job (see the requirement).
    package func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, now: Int64
    )
        async throws(LedgerError) -> FinishOutcome
    {
        try await finish(
            transactionId: transactionId, claims: claims, requiresDelivery: requiresDelivery, enqueueAppleFinish: false,
            now: now)
    }

    /// Records one range of a transaction's bundle served at `now`: `recordServed(_:)` with that range alone.
    package func recordServed(
        transactionId: String, digest: BundleDigest, range: Range<Int64>, client: String, now: Int64
    ) async throws(LedgerError) {
        _ = try await recordServed([
            ServedRange(transactionId: transactionId, digest: digest, range: range, client: client, at: now)
        ])
    }

    /// Every delivery of unfinished transactions whose last activity is older than `before`.
    package func unfinished(before: Int64) async throws(LedgerError) -> [DeliveryStatus] {
        try await unfinished(before: before, after: nil, limit: Int.max)
    }

    /// The whole audit trail of one transaction, oldest first.
    package func auditTrail(transactionId: String) async throws(LedgerError) -> [AuditEvent] {
        try await auditTrail(transactionId: transactionId, afterSequence: 0, limit: Int.max)
    }

    /// Every transaction over the irregular-activity thresholds since `since`.
    package func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int
    )
        async throws(LedgerError) -> [IrregularTransaction]
    {
        try await irregularTransactions(
            since: since, maxAccountTokens: maxAccountTokens, maxClientAddresses: maxClientAddresses, offset: 0,
            limit: Int.max)
    }
}
