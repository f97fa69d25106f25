import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Every seed of the `archives` libFuzzer campaign and every input a campaign found breaking an invariant,
/// replayed through the same harness in a scratch directory of its own.
@Suite("Fuzz corpus and regressions replayed: archives")
struct ArchiveFuzzRegressionTests {
    @Test func archiveInputsKeepEveryInvariant() async throws {
        let inputs = try FuzzInputs.inputs("archives")
        #expect(inputs.count >= 8, "the seeds are missing: \(FuzzInputs.root.path)")
        try await withScratch { scratch in
            let harness = ArchiveFuzzHarness(scratch: scratch)
            for (name, bytes) in inputs {
                #expect(harness.violations(bytes) == [], "\(name)")
            }
            #expect(ArchiveFuzzHarness.list(scratch) == [], "the harness leaves nothing behind")
        }
    }

    @Test func theSeedsReachBothOutcomes() async throws {
        // The seeds hold archives that extract and archives that are refused, so a replay runs both checks.
        try await withScratch { scratch in
            var extracted = 0
            var refused = 0
            for (_, bytes) in try FuzzInputs.inputs("archives") {
                try writeFile(scratch + "/seed", bytes)
                do {
                    _ = try Archive.entries(scratch + "/seed", limits: ArchiveFuzzHarness.limits)
                    extracted += 1
                } catch {
                    refused += 1
                }
            }
            #expect(extracted >= 3 && refused >= 3, "\(extracted) extracted, \(refused) refused")
        }
    }

    @Test func theHarnessChecksBite() {
        let escaping = ArchiveEntry(path: "Contents/../../escape", kind: .file, size: 3)
        #expect(ArchiveFuzzHarness.entryViolations([escaping]) == ["unsafe path \"Contents/../../escape\" accepted"])
        let big = ArchiveEntry(path: "big", kind: .file, size: ArchiveFuzzHarness.limits.maxEntryBytes + 1)
        #expect(ArchiveFuzzHarness.entryViolations([big]).count == 1)
        let listed = [ArchiveEntry(path: "Contents/a", kind: .file, size: 3)]
        #expect(ArchiveFuzzHarness.diskViolations(listed, on: [("Contents", "directory", 0), ("Contents/a", "file", 3)]) == [])
        let linked = ArchiveFuzzHarness.diskViolations(listed, on: [("Contents", "directory", 0), ("Contents/a", "link", 0)])
        #expect(linked.count == 1 && linked[0].contains("link"), "\(linked)")
        let extra = ArchiveFuzzHarness.diskViolations(
            listed, on: [("Contents", "directory", 0), ("Contents/a", "file", 3), ("escape", "file", 1)])
        #expect(extra == ["extraction wrote file \"escape\", which is no entry"])
    }
}
