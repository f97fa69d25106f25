import Foundation
import Testing

@testable import DepotBundles

/// A bundle stores names byte for byte, so the planner must not treat NFC and NFD spellings of a path as the
/// same file (Swift's `String ==` does: it compares by canonical equivalence).
@Suite("Delta planning compares paths as bytes")
struct DeltaNormalizationTests {
    static let nfc = "caf\u{E9}.txt"
    static let nfd = "cafe\u{301}.txt"

    static func pack(_ version: String, _ files: [(String, Int64)]) -> Pack {
        Pack(
            directory: "/nowhere", manifest: PackManifest(productId: "p", version: version, publishedAt: 0),
            files: files.map { PackFile(relativePath: $0.0, size: $0.1) })
    }

    @Test(arguments: [
        ("NFC to NFD", nfc, nfd),
        ("NFD to NFC", nfd, nfc),
        ("NFC directory to NFD directory", "d\u{E9}j\u{E0}/a.txt", "de\u{301}ja\u{300}/a.txt"),
    ])
    func respelledPathIsRemovedAndAdded(_ name: String, old: String, new: String) throws {
        #expect(old == new, "the two spellings are canonically equivalent")
        let base = Self.pack("1", [(old, 5), ("same.txt", 1)])
        let target = Self.pack("2", [(new, 5), ("same.txt", 1)])
        var asked: [String] = []
        let plan = try DeltaPlan(from: base, to: target) { old, _ in
            asked.append(old.relativePath)
            return true
        }
        #expect(asked.map { Array($0.utf8) } == [Array("same.txt".utf8)], "\(name)")
        #expect(plan.removedPaths.map { Array($0.utf8) } == [Array(old.utf8)], "\(name)")
        #expect(plan.added.map { Array($0.relativePath.utf8) } == [Array(new.utf8)], "\(name)")
        #expect(plan.changed.isEmpty && plan.unchangedCount == 1, "\(name)")
    }

    @Test func packFilesWithRespelledPathsAreNotEqual() {
        #expect(PackFile(relativePath: Self.nfc, size: 1) != PackFile(relativePath: Self.nfd, size: 1))
        #expect(PackFile(relativePath: Self.nfc, size: 1) == PackFile(relativePath: Self.nfc, size: 1))
    }

    @Test func appliedDeltaHasTheNewSpelling() async throws {
        try await withTemporaryDirectory { dir in
            let bytes = Array("crème brûlée\n".utf8)
            let oldPack = try PackReader.read(
                directory: PackFixture.write(
                    at: dir + "/v1", manifest: DeltaBundleTests.manifest(version: "1.0"),
                    files: [(Self.nfc, bytes), ("keep.txt", [1])]))
            let newPack = try PackReader.read(
                directory: PackFixture.write(
                    at: dir + "/v2", manifest: DeltaBundleTests.manifest(version: "2.0"),
                    files: [(Self.nfd, bytes), ("keep.txt", [1])]))
            _ = try BundleWriter().writeDelta(from: oldPack, to: newPack, at: dir + "/delta.zip")
            // The applier checks the result holds exactly the new version's names, byte for byte.
            let report = try await DeltaApplier.apply(
                delta: dir + "/delta.zip", oldContents: dir + "/v1/Contents", newContents: dir + "/v2/Contents",
                work: dir + "/applied")
            #expect(report.removed.map { Array($0.utf8) } == [Array(Self.nfc.utf8)])
            #expect(report.entries.map { Array($0.utf8) } == [Array(("Contents/" + Self.nfd).utf8)])
        }
    }
}
