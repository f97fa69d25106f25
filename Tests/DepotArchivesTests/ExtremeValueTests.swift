import DepotArchives
import DepotTestSupport
import Foundation
import Testing

/// Every numeric field the tar and zip readers take from an archive, walked through the extremes (0, -1,
/// `Int64.max`, `Int.max`, `UInt64.max`, `Int64.min`, the 32-bit edges) one field at a time in archives that
/// are otherwise valid, checksums and central directory included: each is read without a trap and either
/// accepted or refused with a typed error, and every value no archive can truly hold is refused.
@Suite("Archive numbers at their extremes")
struct ExtremeValueTests {
    /// A tar of a pax header (a `path` record), a file in base-256 and a directory in octal.
    static let tar: [UInt8] = [0, 2, 0, 0, 0, 0, 1, 1, 1, 4, 0, 1, 2, 65, 0, 0, 2, 2, 1, 1, 1, 2]
    /// A zip of a deflated and a stored entry with classic end records, and the same with ZIP64's.
    static let zips: [[UInt8]] = [[1, 1, 1, 2, 66, 0, 3, 1, 67, 1, 1], [1, 1, 1, 2, 66, 0, 3, 1, 67, 1, 0]]

    static let values = ArchiveStructureGenerator.extremes + [Int64(bitPattern: UInt64.max)]

    @Test(arguments: [tar] + zips)
    func everyFieldAtEveryExtremeIsReadOrRefused(description: [UInt8]) async throws {
        try await withScratch { scratch in
            let plain = ArchiveStructureGenerator.archive(from: description, slot: -1, value: 0)
            #expect(plain.slots >= 4)
            try writeFile(scratch + "/plain", plain.archive)
            let entries = try Archive.entries(scratch + "/plain", limits: ArchiveFuzzHarness.limits)
            #expect(entries.count >= 2, "the archive with plausible numbers is read")
            unlink(scratch + "/plain")
            // Hundreds of archives read in a row: on a thread of their own, off the cooperative pool.
            let problems = try await OffPool.run { () throws -> [String] in
                let harness = ArchiveFuzzHarness(scratch: scratch)
                var problems: [String] = []
                for slot in 0..<plain.slots {
                    for value in Self.values {
                        let archive = ArchiveStructureGenerator.archive(from: description, slot: slot, value: value).archive
                        problems += harness.violations(archive).map { "field \(slot) = \(value): \($0)" }
                        guard value < 0 || value > 1 << 32 else { continue }
                        try writeFile(scratch + "/input", archive)
                        defer { unlink(scratch + "/input") }
                        if (try? Archive.entries(scratch + "/input", limits: ArchiveLimits())) != nil {
                            problems.append("field \(slot) = \(value) was read, not refused")
                        }
                    }
                }
                return problems
            }
            #expect(problems == [])
        }
    }

    /// Generated archives from seeded bytes: whatever the description, the harness's invariants hold.
    @Test func generatedArchivesKeepEveryInvariant() async throws {
        try await withScratch { scratch in
            let (problems, refused) = try await OffPool.run { () throws -> ([String], Int) in
                let harness = ArchiveFuzzHarness(scratch: scratch)
                var bytes = SeededBytes(seed: 20)
                var problems: [String] = []
                var refused = 0
                for round in 0..<1500 {
                    let description = bytes.bytes(8 + round % 56)
                    let archive = ArchiveStructureGenerator.archive(from: description)
                    problems += harness.violations(archive).map { "description \(description): \($0)" }
                    try writeFile(scratch + "/input", archive)
                    if (try? Archive.entries(scratch + "/input", limits: ArchiveFuzzHarness.limits)) == nil { refused += 1 }
                    unlink(scratch + "/input")
                }
                return (problems, refused)
            }
            #expect(problems == [])
            #expect(refused > 100 && refused < 1450, "both outcomes are reached: \(refused) of 1500 refused")
        }
    }

    /// The seeds of the `archive-structures` campaign and what it found, replayed.
    @Test func structureSeedsAndRegressionsKeepEveryInvariant() async throws {
        let inputs = try FuzzInputs.inputs("archive-structures")
        #expect(inputs.count >= 8, "the seeds are missing: \(FuzzInputs.root.path)")
        try await withScratch { scratch in
            let harness = ArchiveFuzzHarness(scratch: scratch)
            for (name, description) in inputs {
                #expect(harness.violations(ArchiveStructureGenerator.archive(from: description)) == [], "\(name)")
            }
        }
    }

    /// The inputs of the review that trapped the reader: each is refused with a typed error.
    @Test(arguments: [
        "tar-directory-size-int64max-base256.tar", "tar-pax-size-int64max-directory.tar", "tar-pax-record-length-intmax.tar",
    ])
    func theReviewInputsAreRefused(name: String) async throws {
        let inputs = try FuzzInputs.inputs("archives")
        let bytes = try #require(inputs.first { $0.name.hasSuffix("/" + name) }?.bytes, "Fuzz/Regressions/archives/\(name) is missing")
        try await withScratch { scratch in
            try writeFile(scratch + "/input", bytes)
            #expect(throws: ArchiveError.self) { try Archive.entries(scratch + "/input") }
            #expect(throws: ArchiveError.self) { try Archive.extract(scratch + "/input", into: scratch + "/out") }
        }
    }
}
