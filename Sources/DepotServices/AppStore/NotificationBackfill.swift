import DepotAppStore
import DepotLedger
import Logging
import ServiceLifecycle

/// Recovers App Store Server Notifications Depot missed (it was down, or the network was): on start and then
/// every `intervalSeconds`, Get Notification History for each environment Depot talks to, from a little before
/// the last notification it recorded (or `lookbackSeconds` ago) until now, every page, each notification fed
/// through the same handler as `POST /v1/notifications/appstore`. The handler is idempotent per
/// notificationUUID and orders revocation facts by signedDate, so overlapping windows, several instances
/// backfilling at once and notifications that did arrive change nothing twice.
package struct NotificationBackfill: Service {
    let ledger: any Ledger
    let client: AppStoreServerAPIClient
    /// The handler `POST /v1/notifications/appstore` feeds.
    let notifications: AppStoreNotificationHandler
    /// The environments asked about (those with an App Store server and a base URL, and accepted here).
    let environments: [String]
    let settings: NotificationHistorySettings
    let clock: @Sendable () -> Int64
    let logger: Logger

    /// A backfill asking `client` for the history of `environments` and feeding each notification to
    /// `notifications`.
    package init(
        ledger: any Ledger, client: AppStoreServerAPIClient, notifications: AppStoreNotificationHandler,
        environments: [String], settings: NotificationHistorySettings, clock: @escaping @Sendable () -> Int64,
        logger: Logger
    ) {
        self.ledger = ledger
        self.client = client
        self.notifications = notifications
        self.environments = environments
        self.settings = settings
        self.clock = clock
        self.logger = logger
    }

    /// The App Store keeps notification history this long, per environment (Apple: 180 days in production,
    /// 30 in the sandbox); a window is never asked to start earlier.
    static func retentionSeconds(_ environment: String) -> Int64 {
        environment == "Production" ? 180 * 86_400 : 30 * 86_400
    }

    /// Backfills on start, then every `settings.intervalSeconds`, until the service group shuts down.
    package func run() async throws {
        var since: Int64?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let started = clock()
            do {
                var from = since ?? started - settings.lookbackSeconds
                if since == nil, let last = try await ledger.lastNotificationRecordedAt() { from = last }
                let applied = try await backfill(from: from - settings.overlapSeconds, to: started)
                if applied > 0 { logger.info("notifications recovered from the App Store's history", metadata: ["count": "\(applied)"]) }
                since = started
            } catch {
                logger.warning("notification history backfill failed; trying again later", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(settings.intervalSeconds)) }
        }
    }

    /// Fetches and applies every notification sent between `from` and `to` (seconds since 1970); returns how
    /// many were new to the ledger.
    func backfill(from: Int64, to: Int64) async throws -> Int {
        var applied = 0
        for environment in environments {
            let start = max(from, to - Self.retentionSeconds(environment) + 60)
            var token: String?
            repeat {
                let page = try await client.notificationHistory(
                    startDate: start * 1000, endDate: (to + 1) * 1000, paginationToken: token, environment: environment)
                for payload in page.signedPayloads {
                    do {
                        let outcome = try await notifications.handle(signedPayload: payload)
                        if !outcome.duplicate { applied += 1 }
                    } catch {
                        // One notification Depot cannot use (another app's, an untrusted signature) does not stop
                        // the rest.
                        logger.warning("a notification from the history was refused", metadata: ["error": "\(error)"])
                    }
                }
                token = page.paginationToken
            } while token != nil
        }
        return applied
    }
}
