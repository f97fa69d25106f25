import DepotAppStore
import DepotCore
import DepotGooglePlay
import DepotLedger
import Foundation
import Logging
import ServiceLifecycle

/// Sends the outbox's calls to the stores: claims due jobs under a lease, sends each, and records the outcome
/// (done on a 2xx, retried later or failed per `StoreOutboxDecision`). A finish job of an App Store transaction
/// is Finish Transaction; of a Google Play purchase, its acknowledgement or consumption
/// (`GooglePlayPurchaseCompletion`). Several instances on one PostgreSQL ledger each claim different jobs; a
/// job whose sender died is claimed again once its lease ends.
///
/// Runs as a `Service` until the server shuts down; `runOnce()` does one pass, for tests.
package struct StoreOutboxWorker: Service {
    /// Where the jobs are.
    let ledger: any Ledger
    /// The App Store Server API, when Depot calls it.
    let client: AppStoreServerAPIClient?
    /// The Google Play Developer API's completion of purchases, when Depot calls it.
    let googlePlay: GooglePlayPurchaseCompletion?
    /// How jobs are claimed, retried and given up.
    let settings: StoreOutboxSettings
    /// This sender's name on the jobs it claims.
    let owner: String
    /// Now, in seconds since 1970.
    let clock: @Sendable () -> Int64
    /// A random number in 0..<1 (retry jitter).
    let random: @Sendable () -> Double
    /// Where sends are logged.
    let logger: Logger
    /// The Send Consumption Information body for a transaction, from the delivery evidence at send time; nil
    /// when the customer's consent is no longer recorded.
    let consumptionInformation: @Sendable (String) async throws -> ConsumptionInformation?
    /// The `orders.reviewrefund` body for a Google Play transaction's pending refund review, from the delivery
    /// evidence at send time; nil when no review is recorded.
    let refundReview: @Sendable (String) async throws -> GooglePlayRefundReview?

    /// A sender of the outbox's jobs through `client` (App Store transactions) and `googlePlay` (Play purchases).
    package init(
        ledger: any Ledger, client: AppStoreServerAPIClient?, googlePlay: GooglePlayPurchaseCompletion? = nil,
        settings: StoreOutboxSettings, owner: String,
        clock: @escaping @Sendable () -> Int64, random: @escaping @Sendable () -> Double, logger: Logger,
        consumptionInformation: @escaping @Sendable (String) async throws -> ConsumptionInformation?,
        refundReview: @escaping @Sendable (String) async throws -> GooglePlayRefundReview? = { _ in nil }
    ) {
        self.ledger = ledger
        self.client = client
        self.googlePlay = googlePlay
        self.settings = settings
        self.owner = owner
        self.clock = clock
        self.random = random
        self.logger = logger
        self.consumptionInformation = consumptionInformation
        self.refundReview = refundReview
    }

    /// A name for this process's sender: host, process id and a random part (a restarted process is a new owner).
    package static func makeOwner() -> String {
        "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UUID().uuidString.prefix(8))"
    }

    /// Sends due jobs until the server shuts down.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var claimedFull = false
            do {
                claimedFull = try await runOnce() == settings.batchSize
            } catch {
                logger.warning("store outbox pass failed", metadata: ["error": "\(error)"])
            }
            // A full batch suggests more are due: look again at once.
            if !claimedFull {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(settings.pollIntervalMilliseconds)) }
            }
        }
    }

    /// Claims the due jobs and sends each; returns how many were claimed.
    @discardableResult
    package func runOnce() async throws(LedgerError) -> Int {
        let jobs = try await ledger.claimAppleJobs(
            owner: owner, now: clock(), leaseSeconds: settings.leaseSeconds, limit: settings.batchSize)
        for job in jobs {
            // A job whose lease ends before its call could be made and recorded is left to the sender that claims it
            // next: sent now, it could be sent by both.
            guard clock() + leaseMargin < job.leaseExpiresAt ?? 0 else {
                logger.notice(
                    "store outbox batch stopped: the lease of the rest ends too soon", metadata: ["transaction": "\(job.transactionId)"])
                break
            }
            try await send(job)
        }
        return jobs.count
    }

    /// Why a job's call did not succeed, by store.
    enum CallFailure: Error, CustomStringConvertible {
        case appStore(AppStoreAPIError)
        case googlePlay(GooglePlayAPIError)

        var description: String {
            switch self {
            case .appStore(let error): error.description
            case .googlePlay(let error): error.description
            }
        }

        /// What becomes of `job` after this failure.
        func decision(job: AppleJob, now: Int64, settings: StoreOutboxSettings, random: () -> Double) -> StoreOutboxDecision {
            switch self {
            case .appStore(let error): StoreOutboxDecision.after(error, job: job, now: now, settings: settings, random: random)
            case .googlePlay(let error):
                // Every failure of an acknowledgement is tried again until the retry period ends: a purchase nobody
                // acknowledges is refunded after three days, and the causes that look final (a token endpoint
                // refusing a clock set wrong, permissions still propagating in Play Console, a configuration being
                // mended) pass. A refund review's answer that Google refuses (a review closed, or a token it never
                // issued) or that cannot be made is given up at once: it would be refused again.
                StoreOutboxDecision.after(
                    retryable: job.kind == .finish || error.isRetryable, retryAfter: error.retryAfter, job: job, now: now,
                    settings: settings, random: random)
            }
        }
    }

    /// The store call a job stands for.
    private func call(_ job: AppleJob) async throws(CallFailure) {
        let stored: LedgerTransaction?
        do {
            stored = try await ledger.transaction(id: job.transactionId)
        } catch {
            throw .appStore(AppStoreAPIError(.transport("the transaction could not be read: \(error)")))
        }
        if let stored, stored.transaction.store == .googlePlay {
            guard let googlePlay else {
                throw .googlePlay(GooglePlayAPIError(.configuration("googlePlay.developerAPI is not configured")))
            }
            do {
                switch job.kind {
                case .finish: try await googlePlay.complete(stored, type: stored.productType)
                case .consumption: try await answerRefundReview(job, googlePlay: googlePlay)
                }
            } catch {
                throw .googlePlay(error)
            }
            return
        }
        guard let client else {
            throw .appStore(AppStoreAPIError(.configuration("appStoreServerAPI is not configured")))
        }
        do {
            try await callAppStore(job, client: client)
        } catch {
            throw .appStore(error)
        }
    }

    /// `orders.reviewrefund` for a Google Play purchase's pending refund review, from the delivery evidence now.
    private func answerRefundReview(_ job: AppleJob, googlePlay: GooglePlayPurchaseCompletion) async throws(GooglePlayAPIError) {
        let review: GooglePlayRefundReview?
        do {
            review = try await refundReview(job.transactionId)
        } catch {
            // The ledger could not be read: a passing failure, tried again like a network one.
            throw GooglePlayAPIError(.transport("the delivery evidence could not be read: \(error)"))
        }
        guard let review else {
            throw GooglePlayAPIError(.configuration("no refund review of \(job.transactionId) is recorded"))
        }
        try await googlePlay.client.reviewRefund(orderId: job.transactionId, review)
    }

    /// The App Store Server API call a job stands for.
    private func callAppStore(_ job: AppleJob, client: AppStoreServerAPIClient) async throws(AppStoreAPIError) {
        switch job.kind {
        case .finish: try await client.finishTransaction(job.transactionId, environment: job.environment)
        case .consumption:
            let information: ConsumptionInformation?
            do {
                information = try await consumptionInformation(job.transactionId)
            } catch {
                // The ledger could not be read: a passing failure, tried again like a network one.
                throw AppStoreAPIError(.transport("the delivery evidence could not be read: \(error)"))
            }
            guard let information else {
                throw AppStoreAPIError(.configuration("the customer's consent was withdrawn; nothing may be sent"))
            }
            try await client.sendConsumptionInformation(information, transactionId: job.transactionId, environment: job.environment)
        }
    }

    private func send(_ job: AppleJob) async throws(LedgerError) {
        let metadata: Logger.Metadata = [
            "transaction": "\(job.transactionId)", "kind": "\(job.kind.rawValue)", "attempt": "\(job.attempts)",
        ]
        do {
            try await call(job)
        } catch {
            let now = clock()
            switch error.decision(job: job, now: now, settings: settings, random: random) {
            case .retry(let at):
                logger.notice("store call failed; will retry", metadata: metadata.merging(["error": "\(error)", "at": "\(at)"]) { $1 })
                _ = try await ledger.retryAppleJob(id: job.id, owner: owner, nextAttemptAt: at, error: error.description, now: now)
            case .fail:
                logger.error("store call failed for good", metadata: metadata.merging(["error": "\(error)"]) { $1 })
                _ = try await ledger.failAppleJob(id: job.id, owner: owner, error: error.description, now: now)
            }
            return
        }
        if try await recordCompletion(job) {
            logger.info("store call acknowledged", metadata: metadata)
        } else {
            // The lease ran out while the call was under way and another sender took the job: Finish
            // Transaction is idempotent at Apple, and a purchase Google holds as acknowledged counts as done, so the
            // second call is harmless.
            logger.warning("store call acknowledged after the lease ended", metadata: metadata)
        }
    }

    /// Seconds of a job's lease that must be left to send its call or to try recording it once more (a ledger attempt
    /// past its wait bound and grace, or most of a store call): 10, or half the lease when it is shorter.
    var leaseMargin: Int64 { min(10, settings.leaseSeconds / 2) }

    /// Records `job` done, trying again while the ledger cannot be reached and this sender's lease holds: a call the
    /// store accepted is not sent a second time (after the lease) only because its outcome could not be written while
    /// the database restarted. Throws once the lease has run out or the server stops.
    private func recordCompletion(_ job: AppleJob) async throws(LedgerError) -> Bool {
        var pause: Duration = .milliseconds(200)
        var told = false
        while true {
            do {
                return try await ledger.completeAppleJob(id: job.id, owner: owner, now: clock())
            } catch {
                let leaseEnd = job.leaseExpiresAt ?? 0
                guard error.isUnavailable, clock() + leaseMargin < leaseEnd, !Task.isShuttingDownGracefully, !Task.isCancelled
                else {
                    throw error
                }
                if !told {
                    told = true
                    logger.warning(
                        "a store call was accepted but the ledger cannot record it; trying again until the lease ends",
                        metadata: ["transaction": "\(job.transactionId)", "leaseEndsAt": "\(leaseEnd)", "error": "\(error.message)"])
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }
}
