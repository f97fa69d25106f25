import DepotAPI
import DepotCore
import DepotLedger

/// A ledger that times every call of the engine it wraps (`depot_ledger_operation_duration_seconds`, labelled
/// with the method's name) and otherwise passes each call through unchanged.
package struct MeasuredLedger: Ledger {
    /// The engine.
    package let base: any Ledger
    /// Where the timings go.
    package let metrics: DepotMetrics

    /// `base`, timed into `metrics`.
    package init(base: any Ledger, metrics: DepotMetrics) {
        self.base = base
        self.metrics = metrics
    }

    /// Runs one call of the engine, recording how long it took whether it succeeded or not.
    package func timed<Value>(_ operation: String, _ call: () async throws(LedgerError) -> Value) async throws(LedgerError) -> Value {
        let start = ContinuousClock.now
        defer { metrics.ledgerCall(operation, duration: ContinuousClock.now - start) }
        return try await call()
    }

    package func recordTransaction(
        _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(LedgerError) -> LedgerTransaction {
        try await timed("recordTransaction") { () async throws(LedgerError) in
            try await base.recordTransaction(transaction, productType: productType, now: now)
        }
    }

    package func acquireLease(_ name: String, owner: String, now: Int64, seconds: Int64) async throws(LedgerError) -> Bool {
        try await timed("acquireLease") { () async throws(LedgerError) in
            try await base.acquireLease(name, owner: owner, now: now, seconds: seconds)
        }
    }

    package func releaseLease(_ name: String, owner: String) async throws(LedgerError) {
        try await timed("releaseLease") { () async throws(LedgerError) in try await base.releaseLease(name, owner: owner) }
    }

    package func transaction(id: String) async throws(LedgerError) -> LedgerTransaction? {
        try await timed("transaction") { () async throws(LedgerError) in try await base.transaction(id: id) }
    }

    package func transactions(originalId: String) async throws(LedgerError) -> [PurchaseTransaction] {
        try await timed("transactionsByOriginalId") { () async throws(LedgerError) in try await base.transactions(originalId: originalId) }
    }

    package func transactions(productId: String, appAccountToken: String) async throws(LedgerError) -> [PurchaseTransaction] {
        try await timed("transactionsByAccount") { () async throws(LedgerError) in
            try await base.transactions(productId: productId, appAccountToken: appAccountToken)
        }
    }

    package func recordAttempt(
        transactionId: String, appAccountToken: String?, client: String, activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption? {
        try await timed("recordAttempt") { () async throws(LedgerError) in
            try await base.recordAttempt(
                transactionId: transactionId, appAccountToken: appAccountToken, client: client, activitySince: activitySince,
                now: now)
        }
    }

    package func transactions(appAccountToken: String, limit: Int) async throws(LedgerError) -> [LedgerTransaction] {
        try await timed("transactionsOfAccount") { () async throws(LedgerError) in
            try await base.transactions(appAccountToken: appAccountToken, limit: limit)
        }
    }

    package func setRevocation(
        transactionId: String, revokedAt: Int64?, revocation: PurchaseRevocation?, reason: String, signedAt: Int64?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await timed("setRevocation") { () async throws(LedgerError) in
            try await base.setRevocation(
                transactionId: transactionId, revokedAt: revokedAt, revocation: revocation, reason: reason, signedAt: signedAt,
                now: now)
        }
    }

    package func revokedTransactionIds() async throws(LedgerError) -> Set<String> {
        try await timed("revokedTransactionIds") { () async throws(LedgerError) in try await base.revokedTransactionIds() }
    }

    package func finishedConsumableIds(catalogConsumables: [String], finishedSince: Int64) async throws(LedgerError) -> Set<String> {
        try await timed("finishedConsumableIds") { () async throws(LedgerError) in
            try await base.finishedConsumableIds(catalogConsumables: catalogConsumables, finishedSince: finishedSince)
        }
    }

    package func recordGrants(transactionId: String, deliveries: [PlannedDelivery], now: Int64) async throws(LedgerError) {
        try await timed("recordGrants") { () async throws(LedgerError) in
            try await base.recordGrants(transactionId: transactionId, deliveries: deliveries, now: now)
        }
    }

    package func offers(transactionId: String) async throws(LedgerError) -> [PlannedDelivery] {
        try await timed("offers") { () async throws(LedgerError) in try await base.offers(transactionId: transactionId) }
    }

    package func versionReach(productId: String) async throws(LedgerError) -> [VersionReach] {
        try await timed("versionReach") { () async throws(LedgerError) in try await base.versionReach(productId: productId) }
    }

    @discardableResult
    package func recordServed(_ ranges: [ServedRange]) async throws(LedgerError) -> Int {
        try await timed("recordServed") { () async throws(LedgerError) in try await base.recordServed(ranges) }
    }

    package func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, enqueueAppleFinish: Bool, now: Int64
    ) async throws(LedgerError) -> FinishOutcome {
        try await timed("finish") { () async throws(LedgerError) in
            try await base.finish(
                transactionId: transactionId, claims: claims, requiresDelivery: requiresDelivery,
                enqueueAppleFinish: enqueueAppleFinish, now: now)
        }
    }

    package func recordNotification(
        _ notification: NotificationRecord, enqueueConsumption: Bool, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await timed("recordNotification") { () async throws(LedgerError) in
            try await base.recordNotification(notification, enqueueConsumption: enqueueConsumption, now: now)
        }
    }

    package func lastNotificationRecordedAt() async throws(LedgerError) -> Int64? {
        try await timed("lastNotificationRecordedAt") { () async throws(LedgerError) in try await base.lastNotificationRecordedAt() }
    }

    package func unfinished(before: Int64, after: DeliveryKey?, limit: Int) async throws(LedgerError) -> [DeliveryStatus] {
        try await timed("unfinished") { () async throws(LedgerError) in
            try await base.unfinished(before: before, after: after, limit: limit)
        }
    }

    package func revokeIfNotRevoked(
        transactionId: String, revokedAt: Int64, revocation: PurchaseRevocation?, reason: String, now: Int64
    ) async throws(LedgerError)
        -> Bool
    {
        try await timed("revokeIfNotRevoked") { () async throws(LedgerError) in
            try await base.revokeIfNotRevoked(
                transactionId: transactionId, revokedAt: revokedAt, revocation: revocation, reason: reason, now: now)
        }
    }

    package func pendingGooglePlayPurchases(purchasedFrom: Int64, until: Int64) async throws(LedgerError) -> Int {
        try await timed("pendingGooglePlayPurchases") { () async throws(LedgerError) in
            try await base.pendingGooglePlayPurchases(purchasedFrom: purchasedFrom, until: until)
        }
    }

    package func deliveries(transactionId: String) async throws(LedgerError) -> [DeliveryStatus] {
        try await timed("deliveries") { () async throws(LedgerError) in try await base.deliveries(transactionId: transactionId) }
    }

    package func startRental(transactionId: String, reason: String, now: Int64) async throws(LedgerError) -> Bool {
        try await timed("startRental") { () async throws(LedgerError) in
            try await base.startRental(transactionId: transactionId, reason: reason, now: now)
        }
    }

    package func auditTrail(transactionId: String, afterSequence: Int64, limit: Int) async throws(LedgerError) -> [AuditEvent] {
        try await timed("auditTrail") { () async throws(LedgerError) in
            try await base.auditTrail(transactionId: transactionId, afterSequence: afterSequence, limit: limit)
        }
    }

    package func irregularTransactions(
        since: Int64, maxAccountTokens: Int, maxClientAddresses: Int, offset: Int, limit: Int
    ) async throws(LedgerError) -> [IrregularTransaction] {
        try await timed("irregularTransactions") { () async throws(LedgerError) in
            try await base.irregularTransactions(
                since: since, maxAccountTokens: maxAccountTokens, maxClientAddresses: maxClientAddresses, offset: offset,
                limit: limit)
        }
    }

    package func recordRedemption(
        _ transaction: PurchaseTransaction, productType: ProductType?, appAccountToken: String?, client: String,
        activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption {
        try await timed("recordRedemption") { () async throws(LedgerError) in
            try await base.recordRedemption(
                transaction, productType: productType, appAccountToken: appAccountToken, client: client,
                activitySince: activitySince, now: now)
        }
    }

    /// Closes the engine (not timed: it happens once, at the end).
    package func close() async throws(LedgerError) {
        try await base.close()
    }
}
