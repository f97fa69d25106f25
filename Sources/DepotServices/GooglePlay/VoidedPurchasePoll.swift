import DepotCore
import DepotGooglePlay
import DepotLedger
import DepotTrust
import Logging
import ServiceLifecycle

/// Revokes the Google Play purchases Google voided (refunds, chargebacks, cancelled orders): on start and then
/// every `intervalSeconds`, `purchases.voidedpurchases.list` from a little before the previous window's end (or
/// `lookbackSeconds` ago, at most Google's 30 days) until now, every page. Each voided purchase known to the
/// ledger (by its order id, or for a test purchase by its token's SHA-256) is revoked with its voided time,
/// and `onRevoked` stops its grants at once. A purchase revoked before is left as it is, so overlapping windows
/// and several instances polling at once change nothing twice.
package struct VoidedPurchasePoll: Service {
    /// Google keeps voided purchases this long; a window never starts earlier.
    static let retentionSeconds: Int64 = 30 * 86_400

    let ledger: any Ledger
    let client: GooglePlayDeveloperAPIClient
    /// How often, and how far back.
    package let settings: VoidedPurchasePollSettings
    let clock: @Sendable () -> Int64
    let logger: Logger
    let onRevoked: @Sendable (String) async -> Void
    /// Called for each purchase newly revoked because Google refunded it unacknowledged (voided reason 8).
    let onUnacknowledgedVoid: @Sendable () -> Void

    /// Google's voided reason for a purchase it refunded because nobody acknowledged it within three days.
    package static let unacknowledgedReason = 8

    /// A poll of `client` that revokes in `ledger`; `clock` gives seconds since 1970.
    package init(
        ledger: any Ledger, client: GooglePlayDeveloperAPIClient, settings: VoidedPurchasePollSettings,
        clock: @escaping @Sendable () -> Int64, logger: Logger, onRevoked: @escaping @Sendable (String) async -> Void,
        onUnacknowledgedVoid: @escaping @Sendable () -> Void = {}
    ) {
        self.ledger = ledger
        self.client = client
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.onRevoked = onRevoked
        self.onUnacknowledgedVoid = onUnacknowledgedVoid
    }

    /// Polls until the server shuts down.
    package func run() async throws {
        var since: Int64?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let started = clock()
            do {
                let from = (since ?? started - settings.lookbackSeconds) - settings.overlapSeconds
                let revoked = try await poll(from: from, to: started)
                if revoked > 0 { logger.info("voided Google Play purchases revoked", metadata: ["count": "\(revoked)"]) }
                since = started
            } catch {
                logger.warning("voided purchases poll failed; trying again later", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(settings.intervalSeconds)) }
        }
    }

    /// Fetches the purchases voided since `from` (seconds since 1970; at most Google's 30 days before `to`, now)
    /// and revokes those the ledger knows; returns how many were newly revoked.
    @discardableResult
    package func poll(from: Int64, to: Int64) async throws -> Int {
        let start = max(from, to - Self.retentionSeconds + 60)
        var revoked = 0
        var token: String?
        var pages = 0
        repeat {
            // No end: Google's "now", which an end by this machine's clock could pass (Google refuses an end in the
            // future); what is voided after `to` is seen again by the next window's overlap.
            let page = try await client.voidedPurchases(startTimeMillis: start * 1000, pageToken: token, includeSubscriptions: true)
            for voided in page.voidedPurchases ?? [] where try await revoke(voided) { revoked += 1 }
            token = page.tokenPagination?.nextPageToken
            pages += 1
        } while token != nil && pages < 1_000
        return revoked
    }

    /// Revokes one voided purchase; true when it was known and not revoked before. A quantity-based partial refund
    /// (`refundType` 2) revokes the units refunded (its `voidedQuantity`, or more when the Developer API's
    /// `refundableQuantity` says more were), and the rest keep entitling; a void whose units are out of bounds, or
    /// cover the whole quantity, revokes the purchase.
    private func revoke(_ voided: GooglePlayVoidedPurchasePage.VoidedPurchase) async throws(LedgerError) -> Bool {
        var candidates: [String] = []
        if let orderId = voided.orderId, !orderId.isEmpty { candidates.append(orderId) }
        if let token = voided.purchaseToken, !token.isEmpty { candidates.append(GooglePlayVerifier.tokenTransactionId(token)) }
        let voidedAt = voided.voidedAtMillis ?? clock() * 1000
        for id in candidates {
            guard let stored = try await ledger.transaction(id: id), stored.transaction.store == .googlePlay else { continue }
            let reason =
                "Google Play voided the purchase (voidedReason \(voided.voidedReason ?? 0), voidedSource \(voided.voidedSource ?? 0))"
            let revocation = await units(of: voided, stored.transaction).map {
                PurchaseRevocation(kind: .voided, at: voidedAt, revokedQuantity: $0)
            }
            // A refund of some units whose number neither the void nor the Developer API tells (a missing or odd
            // voidedQuantity, the purchase not readable now) revokes nothing: taking back every unit would refuse a
            // buyer what they still paid for, for good. The void is read again by the next poll's overlap.
            if revocation == nil, voided.refundType == 2, stored.transaction.quantity > 1 {
                logger.warning(
                    "Google Play refunded part of a purchase but how many units is not known yet; nothing revoked",
                    metadata: ["transaction": "\(id)", "quantity": "\(stored.transaction.quantity)"])
                return false
            }
            // Conditional: of a poll and a notification (or two instances) racing, one revokes, once.
            guard
                try await ledger.revokeIfNotRevoked(
                    transactionId: id, revokedAt: voidedAt,
                    revocation: revocation
                        ?? PurchaseRevocation(
                            kind: .voided, at: voidedAt, revokedQuantity: stored.transaction.quantity),
                    reason: reason, now: clock())
            else { return false }
            if voided.voidedReason == Self.unacknowledgedReason {
                // Google refunded it because nobody acknowledged it within three days: a delivery Depot (or the app)
                // failed to confirm in time.
                logger.error(
                    "Google Play refunded a purchase nobody acknowledged in time; check the outbox and the app's confirmations",
                    metadata: ["transaction": "\(id)", "product": "\(stored.transaction.productId)", "state": "\(stored.state.rawValue)"])
                onUnacknowledgedVoid()
            }
            if let revocation, revocation.revokedQuantity < stored.transaction.quantity {
                // Part of it: the units that remain still entitle, and their grants keep working.
                logger.info(
                    "Google Play refunded part of a purchase",
                    metadata: ["transaction": "\(id)", "units": "\(revocation.revokedQuantity) of \(stored.transaction.quantity)"])
                return true
            }
            await onRevoked(id)
            return true
        }
        return false
    }

    /// The units a quantity-based partial refund revoked, nil for a full void: its `voidedQuantity`, or what the
    /// Developer API's `refundableQuantity` says is refunded by now when it says more (asked only for such a void).
    private func units(
        of voided: GooglePlayVoidedPurchasePage.VoidedPurchase, _ transaction: PurchaseTransaction
    ) async -> Int? {
        guard voided.refundType == 2 || voided.voidedQuantity != nil, transaction.quantity > 1 else { return nil }
        var refundable: Int?
        if let productId = transaction.storeProductId, let token = transaction.purchaseToken {
            refundable = try? await client.productPurchase(productId: productId, purchaseToken: token).refundableQuantity
        }
        return RefundRules.googlePlayUnits(
            quantity: transaction.quantity, voidedQuantity: voided.voidedQuantity, refundableQuantity: refundable)
    }
}
