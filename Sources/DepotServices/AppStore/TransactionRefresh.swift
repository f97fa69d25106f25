import DepotAppStore
import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// Looks one transaction up at the App Store (Get Transaction Info), verifies the signed answer as any signed
/// transaction is verified, and applies it to the ledger: its expiry (recorded like a redemption) and its
/// revocation (set or cleared, ordered by the answer's signedDate against the facts applied before).
package struct TransactionRefresh: Sendable {
    /// What the App Store said, as applied.
    package struct Outcome: Sendable, Equatable {
        /// The transaction.
        package var transactionId: String
        /// Its environment.
        package var environment: String
        /// The revocation date now recorded (milliseconds since 1970), nil when not revoked.
        package var revokedAt: Int64?
        /// Its expiry, for subscriptions (milliseconds since 1970).
        package var expiresAt: Int64?
    }

    /// Why a refresh did not happen.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for people.
        package var description: String
    }

    let ledger: any Ledger
    let verifier: AppStoreVerifier
    let client: AppStoreServerAPIClient
    let clock: @Sendable () -> Int64
    /// What a prorated refund of each product not counted in units does; unlisted products revoke.
    package var proratedRefunds: [String: ProratedRefundPolicy] = [:]

    /// A refresh through these parts; `clock` gives seconds since 1970.
    package init(
        ledger: any Ledger, verifier: AppStoreVerifier, client: AppStoreServerAPIClient,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.ledger = ledger
        self.verifier = verifier
        self.client = client
        self.clock = clock
    }

    /// Refreshes a transaction the ledger knows (its recorded environment picks the base URL); `environment`
    /// overrides it, for a transaction the ledger has not seen.
    package func refresh(transactionId: String, environment: String? = nil) async throws(Failure) -> Outcome {
        let known: LedgerTransaction?
        do {
            known = try await ledger.transaction(id: transactionId)
        } catch {
            throw Failure(description: "the ledger cannot be read: \(error)")
        }
        if let store = known?.transaction.store, store != .appStore {
            throw Failure(description: "transaction \(transactionId) is a \(store.rawValue) purchase; the App Store knows nothing of it")
        }
        guard let environment = environment ?? known?.transaction.environment else {
            throw Failure(description: "transaction \(transactionId) is not in the ledger; name its environment with --environment")
        }
        let jws: String
        do {
            jws = try await client.transactionInfo(transactionId, environment: environment)
        } catch {
            throw Failure(description: "Get Transaction Info failed: \(error)")
        }
        let signed: SignedTransaction
        do {
            signed = try await verifier.verifyTransaction(jws)
        } catch {
            throw Failure(description: "the App Store's answer does not verify: \(error.message)")
        }
        guard signed.transactionId == transactionId else {
            throw Failure(description: "the App Store answered with transaction \(signed.transactionId), not \(transactionId)")
        }
        let now = clock()
        var unrevoked = signed.purchase
        unrevoked.revocationDate = nil
        unrevoked.revocation = nil
        do {
            // As a notification does: recorded without its revocation, which only `setRevocation` decides,
            // ordered by signedDate.
            // A known transaction is judged by the type it was recorded under; one first seen here keeps its
            // product's type in the ledger's catalog.
            var productType = try await ledger.transaction(id: transactionId)?.productType
            if productType == nil { productType = try await ledger.catalogProduct(id: unrevoked.productId)?.type }
            let settled = RefundRules.settled(
                signed.purchase, type: productType, prorated: proratedRefunds[unrevoked.productId] ?? .revoke)
            _ = try await ledger.recordTransaction(unrevoked, productType: productType, now: now)
            _ = try await ledger.setRevocation(
                transactionId: transactionId, revokedAt: settled.revocationDate, revocation: settled.revocation,
                reason: signed.revocationDate == nil ? "refreshed from the App Store" : "revoked per the App Store (refresh)",
                signedAt: signed.signedDate, now: now)
            let stored = try await ledger.transaction(id: transactionId)
            return Outcome(
                transactionId: transactionId, environment: signed.environment, revokedAt: stored?.transaction.revocationDate,
                expiresAt: stored?.transaction.expiresDate)
        } catch {
            throw Failure(description: "the ledger cannot be written: \(error)")
        }
    }
}
