import DepotCore
import DepotTestSupport
import Testing

@testable import DepotLedger

/// Rentals in the ledger, on every engine: a rental's terms are recorded with it and never changed, its clock starts
/// at its first confirmed delivery (once, audited), and both outlive the ledger instance that wrote them.
@Suite struct LedgerRentalTests {
    static let terms = RentalTerms(rentalPeriod: 3 * 86_400, expirationPeriod: 48 * 3_600)

    static func rental(_ id: String, terms: RentalTerms? = Self.terms) -> PurchaseTransaction {
        var transaction = Sample.transaction(id)
        transaction.store = .googlePlay
        transaction.rental = terms
        return transaction
    }

    @Test(arguments: Engine.tested)
    func aRentalsClockStartsAtItsFirstConfirmedDeliveryAndOutlivesTheLedger(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let purchased = Sample.purchaseMs / 1000
            let recorded = try await ledger.recordTransaction(Self.rental("8100"), productType: .nonConsumable, now: purchased + 10)
            #expect(recorded.transaction.rental == Self.terms)
            #expect(recorded.rentalStartedAt == nil)
            #expect(recorded.rentalEndsAt == purchased + 3 * 86_400)

            // Presented again with other terms (the configuration changed) or none, the recorded terms stay.
            let other = RentalTerms(rentalPeriod: 30 * 86_400, expirationPeriod: 30 * 86_400)
            #expect(
                try await ledger.recordTransaction(Self.rental("8100", terms: other), now: purchased + 20).transaction.rental == Self.terms)
            #expect(
                try await ledger.recordTransaction(Self.rental("8100", terms: nil), now: purchased + 30).transaction.rental == Self.terms)

            // Grants are not a delivery: the clock starts at the finish that confirms one, and only once.
            try await ledger.recordGrants(transactionId: "8100", deliveries: [Sample.level1], now: purchased + 40)
            #expect(try await ledger.transaction(id: "8100")?.rentalStartedAt == nil)
            let finish = try await ledger.finish(
                transactionId: "8100", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: purchased + 3_600)
            #expect(finish == .finished(firstTime: true))
            let again = try await ledger.finish(
                transactionId: "8100", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: purchased + 7_200)
            #expect(again == .finished(firstTime: false))
            let started = try #require(try await ledger.transaction(id: "8100"))
            #expect(started.rentalStartedAt == purchased + 3_600)
            #expect(started.rentalEndsAt == purchased + 3_600 + 48 * 3_600)
            let audit = try await ledger.auditTrail(transactionId: "8100", afterSequence: 0, limit: 20)
            #expect(audit.filter { $0.event == "rental-started" }.count == 1)
            #expect(audit.first { $0.event == "redeemed" }?.detail.contains("rental 259200 s, expiration 172800 s") == true)

            // Another instance (a restart) reads the same rental.
            let reopened = try await fixture.open()
            let read = try #require(try await reopened.transaction(id: "8100"))
            #expect(read.transaction.rental == Self.terms && read.rentalStartedAt == purchased + 3_600)
            try await fixture.close(reopened)
        }
    }

    @Test(arguments: Engine.tested)
    func aPurchaseNotRentedHasNoClock(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Self.rental("8200", terms: nil), productType: .nonConsumable, now: 10)
            try await ledger.recordGrants(transactionId: "8200", deliveries: [Sample.level1], now: 20)
            _ = try await ledger.finish(transactionId: "8200", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: 30)
            let read = try #require(try await ledger.transaction(id: "8200"))
            #expect(read.transaction.rental == nil && read.rentalStartedAt == nil && read.rentalEndsAt == nil)
            #expect(
                try await ledger.auditTrail(transactionId: "8200", afterSequence: 0, limit: 20).allSatisfy { $0.event != "rental-started" })
        }
    }

    /// Starting a rental's clock directly (Depot's served-bytes evidence) works once, and only for a rental.
    @Test(arguments: Engine.tested)
    func aRentalsClockStartsOnce(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Self.rental("8270"), productType: .nonConsumable, now: 10)
            _ = try await ledger.recordTransaction(Self.rental("8280", terms: nil), productType: .nonConsumable, now: 10)
            #expect(try await ledger.startRental(transactionId: "8270", reason: "served", now: 20))
            #expect(try await !ledger.startRental(transactionId: "8270", reason: "served", now: 30))
            #expect(try await !ledger.startRental(transactionId: "8280", reason: "served", now: 30))
            #expect(try await !ledger.startRental(transactionId: "nope", reason: "served", now: 30))
            #expect(try await ledger.transaction(id: "8270")?.rentalStartedAt == 20)
            #expect(try await ledger.transaction(id: "8280")?.rentalStartedAt == nil)
            let audit = try await ledger.auditTrail(transactionId: "8270", afterSequence: 0, limit: 20)
            #expect(audit.filter { $0.event == "rental-started" }.map(\.detail) == ["served"])
            // A finish after it keeps the first start.
            try await ledger.recordGrants(transactionId: "8270", deliveries: [Sample.level1], now: 40)
            _ = try await ledger.finish(transactionId: "8270", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: 50)
            #expect(try await ledger.transaction(id: "8270")?.rentalStartedAt == 20)
        }
    }

    /// A purchase recorded and delivered before Google said it was rented (the first record came from a
    /// notification): once Google's word is learnt, its clock starts at that first confirmed delivery.
    @Test(arguments: Engine.tested)
    func termsGoogleSaysLearntAfterADeliveryStartTheClockAtIt(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Self.rental("8250", terms: nil), productType: .nonConsumable, now: 10)
            try await ledger.recordGrants(transactionId: "8250", deliveries: [Sample.level1], now: 20)
            _ = try await ledger.finish(transactionId: "8250", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: 30)
            var told = Self.rental("8250")
            told.rentalToldByStore = true
            let learnt = try await ledger.recordTransaction(told, now: 40)
            #expect(learnt.transaction.rental == Self.terms)
            #expect(learnt.rentalStartedAt == 30)
            // A rental never delivered keeps no start.
            _ = try await ledger.recordTransaction(Self.rental("8260", terms: nil), productType: .nonConsumable, now: 10)
            var toldLater = Self.rental("8260")
            toldLater.rentalToldByStore = true
            #expect(try await ledger.recordTransaction(toldLater, now: 40).rentalStartedAt == nil)
        }
    }

    /// A purchase recorded bought outright stays bought outright when it is presented again with terms only the
    /// configuration gives (a rent entry added without a purchase option to a product already sold outright): it is
    /// never turned into a rental, let alone one back-dated to its delivery and so expired.
    @Test(arguments: Engine.tested)
    func configuredTermsNeverTurnAPurchaseBoughtOutrightIntoARental(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Self.rental("8290", terms: nil), productType: .nonConsumable, now: 10)
            try await ledger.recordGrants(transactionId: "8290", deliveries: [Sample.level1], now: 20)
            _ = try await ledger.finish(transactionId: "8290", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: 30)
            let again = try await ledger.recordTransaction(Self.rental("8290"), now: 10_000_000)
            #expect(again.transaction.rental == nil)
            #expect(again.rentalStartedAt == nil && again.rentalEndsAt == nil)
            #expect(try await ledger.transaction(id: "8290")?.transaction.rental == nil)
        }
    }

    /// Terms at the bounds and a purchase time at the edge of Int64 are stored and read without trapping: the end
    /// holds at Int64's bound.
    @Test(arguments: Engine.tested)
    func extremeNumbersAreStoredAndReadWithoutTrapping(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let longest = RentalTerms(rentalPeriod: ISODuration.maximumSeconds, expirationPeriod: ISODuration.maximumSeconds)
            var late = Self.rental("8300", terms: longest)
            late.purchaseDate = .max
            let read = try await ledger.recordTransaction(late, productType: .nonConsumable, now: 10)
            #expect(read.rentalEndsAt == Int64.max / 1000 + ISODuration.maximumSeconds)
            try await ledger.recordGrants(transactionId: "8300", deliveries: [Sample.level1], now: 20)
            _ = try await ledger.finish(
                transactionId: "8300", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: .max - 5)
            let finished = try #require(try await ledger.transaction(id: "8300"))
            #expect(finished.rentalStartedAt == Int64.max - 5)
            #expect(finished.rentalEndsAt == Int64.max / 1000 + ISODuration.maximumSeconds)
        }
    }
}
