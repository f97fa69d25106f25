import DepotCore
import Testing

/// The publish rule, table-driven: which versions change state when one is published.
@Suite("Publish plan")
struct PublishPlanTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var versions: [(String, VersionState, Int64)]
        var target: String
        var now: Int64
        var changes: [(String, VersionState)]
        var rollback: Bool

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "first publish", versions: [("1.0", .staged, 100)], target: "1.0", now: 200,
            changes: [("1.0", .published)], rollback: false),
        Row(
            name: "newer version replaces the current", versions: [("1.0", .published, 100), ("1.1", .staged, 150)],
            target: "1.1", now: 200, changes: [("1.1", .published), ("1.0", .superseded)], rollback: false),
        Row(
            name: "back to a superseded version", versions: [("1.0", .superseded, 100), ("1.1", .published, 150)],
            target: "1.0", now: 200, changes: [("1.0", .published), ("1.1", .superseded)], rollback: true),
        Row(
            name: "an older staged version is a rollback",
            versions: [("0.9", .staged, 50), ("1.0", .published, 100)], target: "0.9", now: 200,
            changes: [("0.9", .published), ("1.0", .superseded)], rollback: true),
        Row(
            name: "the only published version again changes nothing", versions: [("1.0", .published, 100), ("0.9", .superseded, 50)],
            target: "1.0", now: 200, changes: [], rollback: false),
        Row(
            name: "a scheduled version keeps the current one until its time",
            versions: [("1.0", .superseded, 50), ("1.1", .published, 100), ("1.2", .staged, 500)], target: "1.2", now: 200,
            changes: [("1.2", .published)], rollback: false),
        Row(
            name: "a scheduled version replaces other scheduled ones",
            versions: [("1.1", .published, 100), ("1.2", .published, 400), ("1.3", .staged, 500)], target: "1.3", now: 200,
            changes: [("1.3", .published), ("1.2", .superseded)], rollback: false),
        Row(
            name: "a rollback drops every other published version, scheduled ones too",
            versions: [("1.0", .superseded, 50), ("1.1", .published, 100), ("1.2", .published, 400)], target: "1.0", now: 200,
            changes: [("1.0", .published), ("1.1", .superseded), ("1.2", .superseded)], rollback: true),
        Row(
            name: "publishing an imported older version among several published",
            versions: [("1.0", .published, 100), ("1.1", .published, 150)], target: "1.0", now: 200,
            changes: [("1.1", .superseded)], rollback: true),
    ]

    @Test(arguments: rows)
    func plan(row: Row) throws {
        let plan = try PublishPlan.plan(
            publishing: row.target,
            among: row.versions.map { PublishPlan.Entry(version: $0.0, state: $0.1, publishedAt: $0.2) }, now: row.now)
        #expect(plan.changes == row.changes.map { PublishPlan.Change(version: $0.0, state: $0.1) })
        #expect(plan.isRollback == row.rollback)
    }

    @Test func unknownAndFailedVersionsAreRefused() {
        let versions = [PublishPlan.Entry(version: "1.0", state: .failed, publishedAt: 1)]
        #expect(throws: PublishPlan.Refusal.unknownVersion) { try PublishPlan.plan(publishing: "2.0", among: versions, now: 5) }
        #expect(throws: PublishPlan.Refusal.failedVersion) { try PublishPlan.plan(publishing: "1.0", among: versions, now: 5) }
    }
}
