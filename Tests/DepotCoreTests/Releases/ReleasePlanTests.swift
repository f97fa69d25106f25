import DepotCore
import Testing

/// The publish rule with releases: rollouts beside the current version, halting, raising, rolling back during a
/// rollout, beta beside production, promotion, and the refusals.
@Suite("Publish plan with releases")
struct ReleasePlanTests {
    typealias Entry = PublishPlan.Entry
    typealias Change = PublishPlan.Change

    static let current = Entry(version: "1.0", state: .published, publishedAt: 100)
    static let staged = Entry(version: "1.1", state: .staged, publishedAt: 150)

    @Test func aRolloutKeepsTheCurrentVersionBesideIt() throws {
        let plan = try PublishPlan.plan(publishing: "1.1", release: .rollout(10), among: [Self.current, Self.staged], now: 200)
        #expect(plan.changes == [Change(version: "1.1", state: .published, release: .rollout(10))])
        #expect(!plan.isRollback)
    }

    @Test func raisingToAHundredCompletesTheRolloutAndSupersedesTheOldVersion() throws {
        let rolling = Entry(version: "1.1", state: .published, publishedAt: 150, release: .rollout(10))
        let raised = try PublishPlan.plan(publishing: "1.1", release: .rollout(50), among: [Self.current, rolling], now: 200)
        #expect(raised.changes == [Change(version: "1.1", state: .published, release: .rollout(50))])
        let full = try PublishPlan.plan(publishing: "1.1", release: .rollout(100), among: [Self.current, rolling], now: 200)
        #expect(
            full.changes == [Change(version: "1.1", state: .published, release: .full), Change(version: "1.0", state: .superseded)])
    }

    @Test func haltingKeepsThePercentAndOnlyARunningRolloutHalts() throws {
        let rolling = Entry(version: "1.1", state: .published, publishedAt: 150, release: .rollout(25))
        let halted = VersionRelease(channel: .production, percent: 25, halted: true)
        let plan = try PublishPlan.plan(publishing: "1.1", release: halted, among: [Self.current, rolling], now: 200)
        #expect(plan.changes == [Change(version: "1.1", state: .published, release: halted)])
        #expect(throws: PublishPlan.Refusal.notRollingOut) {
            try PublishPlan.plan(publishing: "1.0", release: halted, among: [Self.current, rolling], now: 200)
        }
        #expect(throws: PublishPlan.Refusal.notRollingOut) {
            try PublishPlan.plan(publishing: "1.1", release: halted, among: [Self.current, Self.staged], now: 200)
        }
        // A halted rollout resumes when raised (not lowered).
        let stopped = Entry(version: "1.1", state: .published, publishedAt: 150, release: halted)
        let resumed = try PublishPlan.plan(publishing: "1.1", release: .rollout(25), among: [Self.current, stopped], now: 200)
        #expect(resumed.changes == [Change(version: "1.1", state: .published, release: .rollout(25))])
        #expect(throws: PublishPlan.Refusal.rolloutShrinks(percent: 25)) {
            try PublishPlan.plan(publishing: "1.1", release: .rollout(10), among: [Self.current, stopped], now: 200)
        }
    }

    @Test func publishingTheCurrentVersionAgainRollsTheRolloutBack() throws {
        let rolling = Entry(version: "1.1", state: .published, publishedAt: 150, release: .rollout(10))
        let plan = try PublishPlan.plan(publishing: "1.0", among: [Self.current, rolling], now: 200)
        #expect(plan.changes == [Change(version: "1.1", state: .superseded, release: .rollout(10))])
        #expect(plan.isRollback)
    }

    @Test func aNewRolloutReplacesTheRunningOne() throws {
        let rolling = Entry(version: "1.1", state: .published, publishedAt: 150, release: .rollout(10))
        let next = Entry(version: "1.2", state: .staged, publishedAt: 160)
        let plan = try PublishPlan.plan(publishing: "1.2", release: .rollout(5), among: [Self.current, rolling, next], now: 200)
        #expect(
            plan.changes == [
                Change(version: "1.2", state: .published, release: .rollout(5)),
                Change(version: "1.1", state: .superseded, release: .rollout(10)),
            ])
    }

    @Test func aRolloutNeedsANewerVersionThanACurrentOne() {
        #expect(throws: PublishPlan.Refusal.nothingToRollOutFrom) {
            try PublishPlan.plan(publishing: "1.1", release: .rollout(10), among: [Self.staged], now: 200)
        }
        let older = Entry(version: "0.9", state: .superseded, publishedAt: 50)
        #expect(throws: PublishPlan.Refusal.rolloutNotNewer(current: "1.0")) {
            try PublishPlan.plan(publishing: "0.9", release: .rollout(10), among: [older, Self.current], now: 200)
        }
        // A version scheduled for later is not current yet: nothing to roll out from.
        let scheduled = Entry(version: "1.0", state: .published, publishedAt: 300)
        #expect(throws: PublishPlan.Refusal.nothingToRollOutFrom) {
            try PublishPlan.plan(publishing: "1.1", release: .rollout(10), among: [scheduled, Self.staged], now: 200)
        }
    }

    @Test func betaStandsBesideProductionAndIsPromoted() throws {
        let plan = try PublishPlan.plan(publishing: "1.1", release: .beta, among: [Self.current, Self.staged], now: 200)
        #expect(plan.changes == [Change(version: "1.1", state: .published, release: .beta)])
        #expect(!plan.isRollback)
        // A second beta version replaces the first; production stays.
        let beta = Entry(version: "1.1", state: .published, publishedAt: 150, release: .beta)
        let next = Entry(version: "1.2", state: .staged, publishedAt: 160)
        let second = try PublishPlan.plan(publishing: "1.2", release: .beta, among: [Self.current, beta, next], now: 200)
        #expect(
            second.changes == [
                Change(version: "1.2", state: .published, release: .beta), Change(version: "1.1", state: .superseded, release: .beta),
            ])
        // A production publish leaves the beta version alone; promoting it replaces production.
        let production = try PublishPlan.plan(
            publishing: "0.9", among: [Self.current, beta, Entry(version: "0.9", state: .staged, publishedAt: 90)], now: 200)
        #expect(!production.changes.contains { $0.version == "1.1" })
        let promoted = try PublishPlan.plan(publishing: "1.1", among: [Self.current, beta], now: 200)
        #expect(
            promoted.changes == [Change(version: "1.1", state: .published, release: .full), Change(version: "1.0", state: .superseded)])
    }
}
