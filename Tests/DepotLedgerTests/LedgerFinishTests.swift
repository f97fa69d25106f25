import DepotTestSupport
import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the finish rules, and concurrent finishes from several ledger instances, on every engine.
@Suite struct LedgerFinishTests {
    @Test(arguments: Engine.tested)
    func unknownTransaction(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let outcome = try await ledger.finish(
                transactionId: "nope", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false, now: 1)
            #expect(outcome == .unknownTransaction)
            #expect(try await ledger.auditTrail(transactionId: "nope").isEmpty)
        }
    }

    @Test(arguments: Engine.tested)
    func anIncompleteOrWrongConfirmationChangesNothing(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let expected = [Sample.level1, Sample.level2, Sample.level3]
            _ = try await ledger.recordTransaction(Sample.transaction("1000"), now: 10)
            try await ledger.recordGrants(transactionId: "1000", deliveries: expected, now: 20)
            let before = try await ledger.deliveries(transactionId: "1000")

            let cases: [(delivered: [ConfirmedDelivery], outcome: FinishOutcome)] = [
                ([], .mismatch(missing: ["level1", "level2", "level3"], wrongDigest: [])),
                (
                    [Sample.confirmed(Sample.level1), Sample.confirmed(Sample.level3)],
                    .mismatch(missing: ["level2"], wrongDigest: [])
                ),
                (
                    [
                        Sample.confirmed(Sample.level1), Sample.confirmed(Sample.level2, digest: Sample.digest("f")),
                        Sample.confirmed(Sample.level3),
                    ],
                    .mismatch(missing: [], wrongDigest: ["level2"])
                ),
                (
                    [
                        Sample.confirmed(Sample.level3, digest: Sample.digest("0")),
                        Sample.confirmed(Sample.level2, digest: Sample.digest("1")),
                    ],
                    .mismatch(missing: ["level1"], wrongDigest: ["level2", "level3"])
                ),
                // Another content's digest under this content's id is still a wrong digest.
                (
                    [
                        Sample.confirmed(Sample.level1, digest: Sample.level2.digest), Sample.confirmed(Sample.level2),
                        Sample.confirmed(Sample.level3),
                    ],
                    .mismatch(missing: [], wrongDigest: ["level1"])
                ),
            ]
            for (step, (delivered, outcome)) in cases.enumerated() {
                let answer = try await ledger.finish(
                    transactionId: "1000", claims: delivered, requiresDelivery: false, now: 100 + Int64(step))
                #expect(answer == outcome)
            }
            let stored = try await ledger.transaction(id: "1000")
            #expect(stored?.state == .pending)
            #expect(stored?.finishedAt == nil)
            #expect(try await ledger.deliveries(transactionId: "1000") == before)
            #expect(try await ledger.events("1000") == ["redeemed", "grants-issued"])
        }
    }

    @Test(arguments: Engine.tested)
    func aCompleteConfirmationFinishesOnceAndRepeatsHarmlessly(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let expected = [Sample.level1, Sample.level2]
            _ = try await ledger.recordTransaction(Sample.transaction("2000"), now: 10)
            try await ledger.recordGrants(transactionId: "2000", deliveries: expected, now: 20)
            // Extra confirmations of contents that were not expected are ignored.
            let delivered = [
                Sample.confirmed(Sample.level2), Sample.confirmed(Sample.level1),
                ConfirmedDelivery(contentId: "bonus", digest: Sample.digest("e")),
            ]
            #expect(
                try await ledger.finish(transactionId: "2000", claims: delivered, requiresDelivery: false, now: 100)
                    == .finished(firstTime: true))

            let stored = try await ledger.transaction(id: "2000")
            #expect(stored?.state == .finished)
            #expect(stored?.finishedAt == 100)
            let deliveries = try await ledger.deliveries(transactionId: "2000")
            #expect(deliveries.map(\.delivery) == expected)
            #expect(deliveries.allSatisfy { $0.confirmedAt == 100 && $0.grantsIssued == 1 })

            // Repeating: harmless, reported as not the first time, nothing rewritten.
            #expect(
                try await ledger.finish(transactionId: "2000", claims: delivered, requiresDelivery: false, now: 200)
                    == .finished(firstTime: false))
            #expect(try await ledger.transaction(id: "2000")?.finishedAt == 100)
            #expect(try await ledger.deliveries(transactionId: "2000") == deliveries)
            // A wrong confirmation after the finish is still answered as such and changes nothing.
            #expect(
                try await ledger.finish(transactionId: "2000", claims: [], requiresDelivery: false, now: 300)
                    == .mismatch(missing: ["level1", "level2"], wrongDigest: []))
            #expect(try await ledger.transaction(id: "2000")?.state == .finished)

            let trail = try await ledger.auditTrail(transactionId: "2000")
            #expect(trail.map(\.event) == ["redeemed", "grants-issued", "finished"])
            #expect(trail.last?.at == 100)
        }
    }

    @Test(arguments: Engine.tested)
    func withNothingOfferedOnlyProductsThatNeedNoDeliveryFinish(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // A consumable must deliver something: with no offer recorded, nothing finishes or changes.
            _ = try await ledger.recordTransaction(Sample.transaction("3000"), now: 10)
            #expect(
                try await ledger.finish(
                    transactionId: "3000", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: true, now: 20)
                    == .nothingOffered)
            #expect(try await ledger.transaction(id: "3000")?.state == .pending)
            #expect(try await ledger.deliveries(transactionId: "3000").isEmpty)

            // A subscription period without issues finishes on an empty confirmation; a claim of something
            // never offered confirms nothing.
            _ = try await ledger.recordTransaction(Sample.transaction("3001"), now: 10)
            #expect(
                try await ledger.finish(
                    transactionId: "3001", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false, now: 30)
                    == .finished(firstTime: true))
            #expect(try await ledger.deliveries(transactionId: "3001").isEmpty)
            #expect(try await ledger.events("3001") == ["redeemed", "finished"])
        }
    }

    /// An offer recorded by a later redeem counts at once: the finish reads the offers in its own ledger
    /// transaction.
    @Test(arguments: Engine.tested)
    func aLaterOfferMustBeConfirmedToo(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("3100"), now: 10)
            try await ledger.recordGrants(transactionId: "3100", deliveries: [Sample.level1], now: 20)
            try await ledger.recordGrants(transactionId: "3100", deliveries: [Sample.level1, Sample.level2], now: 30)
            #expect(
                try await ledger.finish(
                    transactionId: "3100", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false, now: 40)
                    == .mismatch(missing: ["level2"], wrongDigest: []))
            #expect(
                try await ledger.finish(
                    transactionId: "3100", claims: [Sample.confirmed(Sample.level1), Sample.confirmed(Sample.level2)],
                    requiresDelivery: false, now: 50)
                    == .finished(firstTime: true))
        }
    }

    /// 20 finishes of one transaction at once, spread over two ledger instances (two pools on one SQLite
    /// file, two clients on one PostgreSQL database), as two Depot processes would race.
    @Test(arguments: Engine.tested)
    func concurrentFinishesFinishExactlyOnce(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, first in
            let second = try await fixture.open()
            let expected = [Sample.level1, Sample.level2]
            let delivered = expected.map { Sample.confirmed($0) }
            _ = try await first.recordTransaction(Sample.transaction("4000"), now: 10)
            try await second.recordGrants(transactionId: "4000", deliveries: expected, now: 20)

            let outcomes = try await withThrowingTaskGroup(of: FinishOutcome.self) { group in
                for i in 0..<20 {
                    let ledger = i.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await ledger.finish(
                            transactionId: "4000", claims: delivered, requiresDelivery: false, now: 100 + Int64(i))
                    }
                }
                var outcomes: [FinishOutcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == 20)
            #expect(outcomes.filter { $0 == .finished(firstTime: true) }.count == 1)
            #expect(outcomes.filter { $0 == .finished(firstTime: false) }.count == 19)
            #expect(try await first.events("4000").filter { $0 == "finished" }.count == 1)
            #expect(try await second.transaction(id: "4000")?.state == .finished)
        }
    }

    /// Racing first sights record one `redeemed`; racing overlapping ranges merge without double counting.
    @Test(arguments: Engine.tested)
    func concurrentRecordsAndServesStayConsistent(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, first in
            let second = try await fixture.open()
            let t = Sample.transaction("5000")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<10 {
                    let ledger = i.isMultiple(of: 2) ? first : second
                    group.addTask { _ = try await ledger.recordTransaction(t, now: 10 + Int64(i)) }
                }
                try await group.waitForAll()
            }
            #expect(try await first.events("5000") == ["redeemed"])

            try await first.recordGrants(transactionId: "5000", deliveries: [Sample.level1], now: 20)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<20 {
                    let ledger = i.isMultiple(of: 2) ? first : second
                    let start = Int64(i) * 10
                    group.addTask {
                        try await ledger.recordServed(
                            transactionId: "5000", digest: Sample.level1.digest, range: start..<(start + 15),
                            client: "192.0.2.\(i)", now: 30)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await second.delivery("5000", "level1")?.bytesCovered == 205)
        }
    }
}
