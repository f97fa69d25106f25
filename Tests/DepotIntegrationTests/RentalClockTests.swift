@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Logging
import Synchronization
import Testing

/// A rental's honest clock through the delivery flows, on both ledger engines, with a clock the test moves: grants
/// and entitlement end at the first confirmed delivery plus the expiration period, or at the purchase plus the rental
/// period when that is earlier (a finish never sent included); a redeem or restore after the end is refused
/// `rental-expired`, and the end survives a restart.
@Suite("Rental clock")
struct RentalClockTests {
    static let movie = "com.example.movie"
    static let movieVersion = ContentVersion(
        productId: movie, contentId: "movie", version: "1.0", publishedAt: 1_000, digest: .repeating("d"), size: 100,
        unpackedSize: 200)
    /// Three days from the purchase, 48 hours from the first confirmed delivery.
    static let terms = RentalTerms(rentalPeriod: 3 * 86_400, expirationPeriod: 48 * 3_600)
    /// The purchase, in seconds since 1970.
    static let bought: Int64 = 1_800_000_000

    /// The time the flows read, moved by the test.
    final class MovedClock: Sendable {
        private let value: Mutex<Int64>
        init(_ now: Int64) { value = Mutex(now) }
        var now: Int64 { value.withLock { $0 } }
        func set(_ now: Int64) { value.withLock { $0 = now } }
    }

    /// The flows over `ledger` with a clock at `now`, grants lasting `grantLifetime`.
    struct Flows {
        let context: DeliveryContext
        let policy = IrregularActivityPolicy(windowSeconds: 3600, maxAccountTokens: 3, maxClientAddresses: 3, slowDownSeconds: 60)

        init(
            _ ledger: any Ledger, now: MovedClock, grantLifetime: Int64 = 600,
            versions: [ContentVersion] = [RentalClockTests.movieVersion]
        ) throws {
            let catalog = Catalog(
                products: [Product(id: RentalClockTests.movie, type: .nonConsumable, title: "Movie")], versions: versions)
            context = DeliveryContext(
                ledger: ledger, catalogs: try CatalogHolder(catalog: catalog, revision: 1, now: 1_000),
                grants: try GrantAuthority(keys: [try GrantKey(id: "k", secret: Array(repeating: 7, count: 32))], activeKeyId: "k"),
                grantLifetime: grantLifetime, revocations: RevocationList(), purges: .disabled(logger: Logger(label: "test")),
                clock: { now.now }, logger: Logger(label: "test"))
        }

        static func rental(_ id: String, terms: RentalTerms? = RentalClockTests.terms) -> VerifiedPurchase {
            var transaction = PurchaseTransaction(
                id: id, originalId: id, productId: RentalClockTests.movie, purchaseDate: RentalClockTests.bought * 1000,
                environment: "Production", store: .googlePlay, storeProductId: "movie", purchaseToken: "token-\(id)")
            transaction.rental = terms
            return VerifiedPurchase(store: .googlePlay, transaction: transaction)
        }

        func redeem(_ purchase: VerifiedPurchase, client: String = "192.0.2.1") async throws(DeliveryError) -> RedemptionFlow.Result {
            try await RedemptionFlow(context: context, policy: policy).redeem(
                .init(purchase: purchase, installed: [:], callerAccount: nil, client: client))
        }

        func finish(_ redeemed: RedemptionFlow.Result) async throws(DeliveryError) -> FinishFlow.Result {
            try await FinishFlow(context: context, storeFinishMode: { _ in .app }).finish(
                .init(
                    transactionId: redeemed.transaction.transaction.id, finishToken: redeemed.finishToken,
                    delivered: [ConfirmedDelivery(contentId: "movie", digest: RentalClockTests.movieVersion.digest)]))
        }

        func restore(_ purchase: VerifiedPurchase) async throws(DeliveryError) -> RestoreFlow.Result {
            try await RestoreFlow(context: context, policy: policy).restore([purchase], callerAccount: nil, client: "192.0.2.9")
        }
    }

    /// Runs `body` with a ledger on `engine` and a way to open it again (a restart); skipped on PostgreSQL without one.
    static func withLedger(
        _ engine: LedgerEngine, name: String = #function,
        _ body: (any Ledger, () async throws -> any Ledger) async throws -> Void
    ) async throws {
        switch engine {
        case .sqlite:
            let scratch = try ScratchDirectory(name)
            defer { scratch.remove() }
            let path = scratch.path + "/ledger.sqlite"
            var opened: [SQLiteLedger] = []
            defer { for ledger in opened { try? ledger.close() } }
            let ledger = try await SQLiteLedger.open(path: path)
            opened.append(ledger)
            try await body(ledger) {
                let again = try await SQLiteLedger.open(path: path)
                opened.append(again)
                return again
            }
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                let ledger = try await PostgresLedger.connect(url: database.url, logger: PostgresLedger.quietLogger)
                let others = Mutex<[PostgresLedger]>([])
                do {
                    try await body(ledger) {
                        let again = try await PostgresLedger.connect(url: database.url, logger: PostgresLedger.quietLogger)
                        others.withLock { $0.append(again) }
                        return again
                    }
                } catch {
                    await ledger.shutdown()
                    for other in others.withLock({ $0 }) { await other.shutdown() }
                    throw error
                }
                await ledger.shutdown()
                for other in others.withLock({ $0 }) { await other.shutdown() }
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func grantsEndAtTheFirstConfirmedDeliveryPlusTheExpirationPeriod(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, reopen in
            let now = MovedClock(Self.bought + 60)
            let flows = try Flows(ledger, now: now, grantLifetime: 7 * 86_400)
            let purchase = Flows.rental("GPA.R1")

            // Before any delivery: the end is the purchase plus three days, and a grant lasts no longer than 48 hours
            // from its issue (the delivery cannot come before it).
            let first = try await flows.redeem(purchase)
            #expect(first.transaction.rentalEndsAt == Self.bought + 3 * 86_400)
            #expect(first.downloads.map(\.grantExpiresAt) == [Self.bought + 60 + 48 * 3_600])

            // Delivered and confirmed an hour after the purchase: the clock starts, the end is 48 hours from then.
            now.set(Self.bought + 3_600)
            let finished = try await flows.finish(first)
            #expect(finished.transaction.state == .finished)
            #expect(finished.transaction.rentalEndsAt == Self.bought + 3_600 + 48 * 3_600)
            let delivered = Self.bought + 3_600
            let again = try await flows.redeem(purchase)
            #expect(again.transaction.rentalStartedAt == delivered)
            #expect(again.transaction.rentalEndsAt == delivered + 48 * 3_600)
            #expect(again.downloads.allSatisfy { $0.grantExpiresAt <= delivered + 48 * 3_600 })
            // Another device, within the rental: the same end, never a fresh clock.
            now.set(delivered + 47 * 3_600)
            let other = try await flows.redeem(purchase, client: "198.51.100.7")
            #expect(other.transaction.rentalEndsAt == delivered + 48 * 3_600)
            #expect(other.downloads.map(\.grantExpiresAt) == [delivered + 48 * 3_600])
            // A grant checked after the end is refused: it expired with the rental.
            let grant = try #require(other.downloads.first?.grant)
            #expect(throws: Never.self) {
                try flows.context.grants.verify(grant, digest: Self.movieVersion.digest, now: delivered + 48 * 3_600 - 1)
            }
            #expect(throws: GrantError.self) {
                try flows.context.grants.verify(grant, digest: Self.movieVersion.digest, now: delivered + 48 * 3_600)
            }

            // At the end: a redeem and a restore are refused, the finish token is no way around it.
            now.set(delivered + 48 * 3_600)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: delivered + 48 * 3_600)) { try await flows.redeem(purchase) }
            #expect(try await flows.restore(purchase).transactions.isEmpty)
            #expect(try await flows.finish(again).transaction.state == .finished)

            // After a restart the end is the same.
            let restarted = try Flows(try await reopen(), now: now)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: delivered + 48 * 3_600)) { try await restarted.redeem(purchase) }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func theRentalPeriodFromThePurchaseEndsItWhenEarlier(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, _ in
            let now = MovedClock(Self.bought + 2 * 86_400)
            let flows = try Flows(ledger, now: now, grantLifetime: 7 * 86_400)
            let purchase = Flows.rental("GPA.R2")
            let first = try await flows.redeem(purchase)
            // Delivered two days after the purchase: the three days end before the 48 hours.
            _ = try await flows.finish(first)
            let again = try await flows.redeem(purchase)
            #expect(again.transaction.rentalEndsAt == Self.bought + 3 * 86_400)
            #expect(again.downloads.map(\.grantExpiresAt) == [Self.bought + 3 * 86_400])
            now.set(Self.bought + 3 * 86_400)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: Self.bought + 3 * 86_400)) { try await flows.redeem(purchase) }

            // A finish never sent: the clock never starts, and the three days still end the rental.
            let unfinished = Flows.rental("GPA.R3")
            now.set(Self.bought + 10)
            let redeemed = try await flows.redeem(unfinished)
            #expect(redeemed.transaction.rentalStartedAt == nil)
            now.set(Self.bought + 3 * 86_400 - 1)
            let late = try await flows.redeem(unfinished)
            #expect(late.downloads.map(\.grantExpiresAt) == [Self.bought + 3 * 86_400])
            now.set(Self.bought + 3 * 86_400)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: Self.bought + 3 * 86_400)) { try await flows.redeem(unfinished) }
        }
    }

    /// An app that downloads every bundle and never finishes: once Depot's own evidence (the origin served every
    /// offered bundle in full) is there, the next redeem or restore starts the clock at that moment; a bundle served
    /// in part starts nothing.
    @Test(arguments: LedgerEngine.tested)
    func bundlesServedInFullStartTheClockWithoutAFinish(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, _ in
            let now = MovedClock(Self.bought + 60)
            let flows = try Flows(ledger, now: now, grantLifetime: 7 * 86_400)
            let purchase = Flows.rental("GPA.R5")
            _ = try await flows.redeem(purchase)
            func served(_ range: Range<Int64>, at: Int64) async throws {
                _ = try await ledger.recordServed([
                    ServedRange(
                        transactionId: "GPA.R5", digest: Self.movieVersion.digest, range: range, client: "192.0.2.1", at: at)
                ])
            }
            try await served(0..<50, at: Self.bought + 120)
            now.set(Self.bought + 600)
            #expect(try await flows.redeem(purchase).transaction.rentalStartedAt == nil)
            try await served(50..<100, at: Self.bought + 700)
            now.set(Self.bought + 3_600)
            let started = try await flows.redeem(purchase, client: "198.51.100.7")
            #expect(started.transaction.rentalStartedAt == Self.bought + 3_600)
            #expect(started.transaction.rentalEndsAt == Self.bought + 3_600 + 48 * 3_600)
            #expect(started.downloads.map(\.grantExpiresAt) == [Self.bought + 3_600 + 48 * 3_600])
            // Later presentations, a restore included, keep that start.
            now.set(Self.bought + 7_200)
            #expect(try await flows.restore(purchase).transactions.first?.transaction.rentalStartedAt == Self.bought + 3_600)
            let audit = try await ledger.auditTrail(transactionId: "GPA.R5", afterSequence: 0, limit: 50)
            #expect(audit.filter { $0.event == "rental-started" }.map(\.detail) == ["every bundle served in full, unconfirmed"])
            now.set(Self.bought + 3_600 + 48 * 3_600)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: Self.bought + 3_600 + 48 * 3_600)) {
                try await flows.redeem(purchase)
            }
        }
    }

    /// A rental finished with nothing delivered (its content not offered yet), whose content is offered later,
    /// redeemed, downloaded and finished again: that finish confirms the delivery and starts the clock, instead of
    /// leaving the buyer the whole rental period from the purchase.
    @Test(arguments: LedgerEngine.tested)
    func aLaterFinishStartsTheClockOfARentalFinishedWithNothingDelivered(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, _ in
            let now = MovedClock(Self.bought + 60)
            let flows = try Flows(ledger, now: now, grantLifetime: 7 * 86_400, versions: [])
            let purchase = Flows.rental("GPA.R6")
            let empty = try await flows.redeem(purchase)
            #expect(empty.downloads.isEmpty)
            let nothing = try await FinishFlow(context: flows.context, storeFinishMode: { _ in .app }).finish(
                .init(transactionId: "GPA.R6", finishToken: empty.finishToken, delivered: []))
            #expect(nothing.transaction.state == .finished)
            #expect(nothing.transaction.rentalStartedAt == nil)

            // The content is offered: redeemed, downloaded and finished an hour after the purchase.
            let catalog = Catalog(
                products: [Product(id: Self.movie, type: .nonConsumable, title: "Movie")], versions: [Self.movieVersion])
            try flows.context.catalogs.install(catalog, revision: 2, now: Self.bought + 600)
            now.set(Self.bought + 3_600)
            let offered = try await flows.redeem(purchase)
            #expect(offered.downloads.count == 1)
            let finished = try await flows.finish(offered)
            #expect(finished.transaction.rentalStartedAt == Self.bought + 3_600)
            #expect(finished.transaction.rentalEndsAt == Self.bought + 3_600 + 48 * 3_600)
            now.set(Self.bought + 3_600 + 48 * 3_600)
            await #expect(throws: DeliveryError.rentalExpired(endedAt: Self.bought + 3_600 + 48 * 3_600)) {
                try await flows.redeem(purchase)
            }
        }
    }

    /// A grant lifetime at Int64's bound (no configuration allows it, but the flows never trust that): the grant's
    /// expiry holds at the bound rather than trapping.
    @Test(arguments: LedgerEngine.tested)
    func aGrantLifetimeAtTheBoundDoesNotOverflow(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, _ in
            let flows = try Flows(ledger, now: MovedClock(Self.bought), grantLifetime: .max)
            #expect(try await flows.redeem(Flows.rental("GPA.B2", terms: nil)).downloads.map(\.grantExpiresAt) == [.max])
        }
    }

    /// The clock at its edges: a server clock behind the purchase (a purchase time in the future) still bounds the
    /// grants by the expiration period from now; a purchase bought outright is never ended.
    @Test(arguments: LedgerEngine.tested)
    func clockEdgesAndAPurchaseBoughtOutright(engine: LedgerEngine) async throws {
        try await Self.withLedger(engine) { ledger, _ in
            let now = MovedClock(Self.bought - 86_400)
            let flows = try Flows(ledger, now: now, grantLifetime: 7 * 86_400)
            let early = try await flows.redeem(Flows.rental("GPA.R4"))
            #expect(early.downloads.map(\.grantExpiresAt) == [Self.bought - 86_400 + 48 * 3_600])
            let bought = try await flows.redeem(Flows.rental("GPA.B1", terms: nil))
            #expect(bought.transaction.rentalEndsAt == nil)
            #expect(bought.downloads.map(\.grantExpiresAt) == [Self.bought - 86_400 + 7 * 86_400])
            now.set(Self.bought + 365 * 86_400)
            #expect(try await flows.redeem(Flows.rental("GPA.B1", terms: nil)).downloads.count == 1)
        }
    }
}
