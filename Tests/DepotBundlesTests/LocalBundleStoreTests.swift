import DepotCore
import DepotTestSupport
import DepotSystem
import Crypto
import Foundation
import Testing

@testable import DepotBundles

@Suite struct LocalBundleStoreTests {
    private func status(_ path: String) throws -> FileStatus {
        try FileStatus.lstat(path)
    }

    private func mode(_ path: String) throws -> mode_t {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return st.st_mode & 0o777
    }

    private func hex(_ digest: SHA256.Digest) -> String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func storesBundleAtomicallyUnderItsDigest() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let store = try LocalBundleStore(root: dir + "/bundles")
            let (_, record) = try await store.importPack(directory: packDirectory)

            let path = try #require(store.path(for: record.digest))
            #expect(path == dir + "/bundles/\(record.digest.hex.prefix(2))/\(record.digest).zip")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(hex(SHA256.hash(data: bytes)) == record.digest.hex)
            #expect(Int64(bytes.count) == record.size)
            #expect(try mode(path) == 0o444)
            // Nothing half-written remains; the index records the build.
            #expect(partialFiles(under: dir + "/bundles/tmp") == [])
            let index = try String(contentsOfFile: dir + "/bundles/index.json", encoding: .utf8)
            #expect(index.contains(record.digest.hex))
            // The same bytes as the writer alone gives.
            let direct = try BundleWriter().write(PackReader.read(directory: packDirectory), to: dir + "/direct.zip")
            #expect(direct == record)
        }
    }

    @Test func pathIsNilForAbsentOrMalformedDigests() async throws {
        try await withTemporaryDirectory { dir in
            let store = try LocalBundleStore(root: dir + "/bundles")
            #expect(store.path(for: .repeating("a")) == nil)
            // A name that is not a digest never reaches the store: it is no `BundleDigest`.
            for name in ["../../etc/passwd", String(repeating: "A", count: 64), "", String(repeating: "a", count: 63)] {
                #expect(BundleDigest(hex: name) == nil)
            }
        }
    }

    @Test func removesLeftoversOnOpen() async throws {
        try await withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/bundles/tmp/odd", withIntermediateDirectories: true)
            try Data("half a bundle".utf8).write(to: URL(fileURLWithPath: dir + "/bundles/tmp/odd/0123.partial"))
            try Data("half a bundle".utf8).write(to: URL(fileURLWithPath: dir + "/bundles/tmp/0123.partial"))
            // A workspace whose owner died: its lock file is there but nobody holds the lock.
            try FileManager.default.createDirectory(atPath: dir + "/bundles/tmp/dead", withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: dir + "/bundles/tmp/dead/lock"))
            try Data("half".utf8).write(to: URL(fileURLWithPath: dir + "/bundles/tmp/dead/4567.partial"))
            _ = try LocalBundleStore(root: dir + "/bundles")
            #expect(partialFiles(under: dir + "/bundles/tmp") == [])
        }
    }

    @Test func anOpenStoreKeepsItsWorkspaceFromAnotherStoreOnTheSameRoot() async throws {
        try await withTemporaryDirectory { dir in
            let first = try LocalBundleStore(root: dir + "/bundles")
            let workspaces = try FileManager.default.contentsOfDirectory(atPath: dir + "/bundles/tmp")
            #expect(workspaces.count == 1)
            let inProgress = dir + "/bundles/tmp/" + workspaces[0] + "/89ab.partial"
            try Data("a build in progress".utf8).write(to: URL(fileURLWithPath: inProgress))
            let second = try LocalBundleStore(root: dir + "/bundles")
            #expect(FileManager.default.fileExists(atPath: inProgress))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/bundles/tmp").count == 2)
            _ = (first, second)
        }
    }

    @Test func failedBuildLeavesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let pack = try PackReader.read(directory: packDirectory)
            try FileManager.default.removeItem(atPath: packDirectory + "/Contents/media/noise.bin")
            let store = try LocalBundleStore(root: dir + "/bundles")
            await #expect(
                throws: PackError(.packChanged, "Contents/media/noise.bin disappeared after the pack was read")
            ) {
                try await store.build(pack)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/bundles") == ["tmp"])
            #expect(partialFiles(under: dir + "/bundles/tmp") == [])
        }
    }

    @Test func reopenedStoreReusesTheBundleWithoutRebuilding() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let first = try LocalBundleStore(root: dir + "/bundles")
            let (_, record) = try await first.importPack(directory: packDirectory)
            let path = try #require(first.path(for: record.digest))
            let before = try status(path)

            // A restart: a new store over the same root, the pack read again.
            let second = try LocalBundleStore(root: dir + "/bundles")
            let (_, again) = try await second.importPack(directory: packDirectory)
            #expect(again == record)
            #expect(await second.completedBuildCount == 0)
            let after = try status(path)
            #expect(after.inode == before.inode)
            #expect(after.modificationTime == before.modificationTime)

            // Another level is another bundle; a touched file is a new fingerprint but the same bytes.
            let (_, stored) = try await second.importPack(directory: packDirectory, compressionLevel: 0)
            #expect(stored.digest != record.digest)
            try PackFixture.setModificationTime(packDirectory + "/Contents/levels/small.txt", seconds: 1_234_567_890)
            let (_, touched) = try await second.importPack(directory: packDirectory)
            #expect(touched == record)
            #expect(await second.completedBuildCount == 2)
            #expect(try status(path).inode == before.inode)
        }
    }

    @Test func missingBundleIsRebuilt() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let store = try LocalBundleStore(root: dir + "/bundles")
            let (pack, record) = try await store.importPack(directory: packDirectory)
            try FileManager.default.removeItem(atPath: try #require(store.path(for: record.digest)))
            #expect(try await store.build(pack) == record)
            #expect(await store.completedBuildCount == 2)
            #expect(store.path(for: record.digest) != nil)
        }
    }

    @Test func concurrentBuildsOfOnePackShareOneBuild() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let pack = try PackReader.read(directory: packDirectory)
            let store = try LocalBundleStore(root: dir + "/bundles")
            let records = try await withThrowingTaskGroup(of: BundleRecord.self) { group in
                for _ in 0..<16 { group.addTask { try await store.build(pack) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(records.count == 16)
            #expect(Set(records.map(\.digest)).count == 1)
            #expect(await store.completedBuildCount == 1)
            let shard = dir + "/bundles/" + records[0].digest.hex.prefix(2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: shard) == [records[0].digest.hex + ".zip"])
        }
    }

    @Test func refusesARootThatIsAFile() async throws {
        try await withTemporaryDirectory { dir in
            try Data().write(to: URL(fileURLWithPath: dir + "/file"))
            #expect(throws: BundleStoreError.self) { try LocalBundleStore(root: dir + "/file") }
        }
    }
}
