import DepotTestSupport
import Foundation
import Testing

@testable import DepotBundles

@Suite struct DeltaBundleTests {
    static func manifest(version: String, productId: String = "com.example.game.level1") -> String {
        #"{"productId": "\#(productId)", "version": "\#(version)", "publishedAt": "2026-04-01T09:00:00Z"}"#
    }

    /// Version 1.0 of a pack, and 2.0 with every kind of change: unchanged files (small, and large enough
    /// to be compared over several chunks), changed ones of the same size and of another size, a large
    /// one changed in its last byte, added ones (one in a new directory, one with a non-ASCII name), a
    /// file moved into a new subdirectory, a directory emptied, a file that becomes a directory and a
    /// directory that becomes a file.
    static func versions() -> (old: [(String, [UInt8])], new: [(String, [UInt8])]) {
        var random = SeededBytes(seed: 3)
        let big = random.bytes(3 << 20)
        var bigChanged = big
        bigChanged[bigChanged.count - 1] ^= 0xFF
        let text = TestData.text(count: 2_500_000, seed: 8)
        let old: [(String, [UInt8])] = [
            ("keep.txt", Array("unchanged\n".utf8)),
            ("levels/1.json", Array(#"{"level": 1, "boss": "AAA"}"#.utf8)),
            ("levels/2.json", Array(#"{"level": 2}"#.utf8)),
            ("readme.txt", Array("read me\n".utf8)),
            ("old/only.txt", Array("going away\n".utf8)),
            ("old/deeper/x.bin", random.bytes(5000)),
            ("media/big.bin", big),
            ("media/big2.bin", big),
            ("media/text.txt", text),
            ("a", Array("a file, then a directory\n".utf8)),
            ("b/inner.txt", Array("a directory, then a file\n".utf8)),
        ]
        let new: [(String, [UInt8])] = [
            ("keep.txt", Array("unchanged\n".utf8)),
            ("levels/1.json", Array(#"{"level": 1, "boss": "BBB"}"#.utf8)),
            ("levels/2.json", Array(#"{"level": 2, "items": [1, 2, 3]}"#.utf8)),
            ("docs/readme.txt", Array("read me\n".utf8)),
            ("media/big.bin", big),
            ("media/big2.bin", bigChanged),
            ("media/text.txt", text),
            ("a/inner.txt", Array("now inside a\n".utf8)),
            ("b", Array("now a file\n".utf8)),
            ("new/added.json", TestData.text(count: 200_000, seed: 9)),
            ("Ünïcödé/naïve café.txt", Array("crème brûlée\n".utf8)),
        ]
        return (old, new)
    }

    @Test func planSortsFilesIntoAddedChangedRemovedAndUnchanged() throws {
        func pack(_ version: String, _ files: [(String, Int64)]) -> Pack {
            Pack(
                directory: "/nowhere",
                manifest: PackManifest(productId: "p", version: version, publishedAt: 0),
                files: files.map { PackFile(relativePath: $0.0, size: $0.1) })
        }
        let base = pack("1", [("a", 1), ("b/c", 2), ("d", 3), ("e", 4), ("z", 9)])
        let target = pack("2", [("b", 5), ("b/c", 2), ("d", 30), ("e", 4), ("f", 6), ("é", 7)])
        var asked: [String] = []
        let plan = try DeltaPlan(from: base, to: target) { old, new in
            #expect(old.relativePath == new.relativePath && old.size == new.size)
            asked.append(old.relativePath)
            return old.relativePath == "b/c"  // "e" has the same size but other bytes
        }
        #expect(asked == ["b/c", "e"])
        #expect(plan.added.map(\.relativePath) == ["b", "f", "é"])
        #expect(plan.changed.map(\.relativePath) == ["d", "e"])
        #expect(plan.removedPaths == ["a", "z"])
        #expect(plan.unchangedCount == 1)
        #expect(plan.files.map(\.relativePath) == ["b", "d", "e", "f", "é"])
        #expect(plan.baseVersion == "1")
    }

    @Test func planBetweenDifferentProductsIsRefused() throws {
        let base = Pack(
            directory: "/x", manifest: PackManifest(productId: "p", version: "1", publishedAt: 0), files: [])
        let target = Pack(
            directory: "/y", manifest: PackManifest(productId: "q", version: "2", publishedAt: 0), files: [])
        #expect {
            try DeltaPlan(from: base, to: target) { _, _ in true }
        } throws: { error in
            (error as? PackError)?.code == .deltaMismatch
        }
    }

    @Test func contentInfoOfADeltaNamesItsBaseAndRemovedPaths() throws {
        var info = ContentInfo(
            pack: Pack(
                directory: "/x", manifest: PackManifest(productId: "p", version: "2", publishedAt: 0),
                files: [PackFile(relativePath: "a", size: 3)]))
        info.baseContentVersion = "1 & more"
        info.removedPaths = ["b/<c>.txt", "d"]
        let text = String(decoding: info.propertyList, as: UTF8.self)
        #expect(text.contains("\t<key>BaseContentVersion</key>\n\t<string>1 &amp; more</string>\n"))
        let removed = """
            \t<key>RemovedPaths</key>
            \t<array>
            \t\t<string>b/&lt;c&gt;.txt</string>
            \t\t<string>d</string>
            \t</array>

            """
        #expect(text.contains(removed))
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }
        #expect(keys == keys.sorted())
        #expect(keys.count == 8)
        info.removedPaths = []
        #expect(String(decoding: info.propertyList, as: UTF8.self).contains("<key>RemovedPaths</key>\n\t<array/>\n"))
    }

    @Test func appliedDeltaGivesExactlyTheNewVersion() async throws {
        try await withTemporaryDirectory { dir in
            let (oldFiles, newFiles) = Self.versions()
            let oldPack = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v1", manifest: Self.manifest(version: "1.0"), files: oldFiles))
            let newPack = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v2", manifest: Self.manifest(version: "2.0"), files: newFiles))

            let plan = try DeltaPlan.compare(from: oldPack, to: newPack)
            #expect(plan.removedPaths == ["a", "b/inner.txt", "old/deeper/x.bin", "old/only.txt", "readme.txt"])
            #expect(plan.unchangedCount == 3)  // keep.txt, media/big.bin, media/text.txt

            let record = try BundleWriter().writeDelta(from: oldPack, to: newPack, at: dir + "/delta.zip")
            let unzip = try await ExternalTools.unzipTest(dir + "/delta.zip")
            #expect(unzip.status == 0, "\(unzip.combined)")
            let report = try await DeltaApplier.apply(
                delta: dir + "/delta.zip", oldContents: dir + "/v1/Contents", newContents: dir + "/v2/Contents",
                work: dir + "/applied")
            #expect(
                report.entries == [
                    "Contents/a/inner.txt", "Contents/b", "Contents/docs/readme.txt", "Contents/levels/1.json",
                    "Contents/levels/2.json", "Contents/media/big2.bin", "Contents/new/added.json",
                    "Contents/Ünïcödé/naïve café.txt",
                ])
            #expect(report.removed == plan.removedPaths)
            #expect(report.info["BaseContentVersion"] == .string("1.0"))
            #expect(report.info["ContentVersion"] == .string("2.0"))
            #expect(report.info["IAPProductIdentifier"] == .string("com.example.game.level1"))
            #expect(report.info["FileCount"] == .integer(Int64(newFiles.count)))
            #expect(!FileManager.default.fileExists(atPath: dir + "/applied/old"))
            // The changed 3 MiB of noise is in it (stored), the unchanged 3 MiB and the text are not.
            #expect(record.size > 3 << 20 && record.size < (3 << 20) + (256 << 10))
        }
    }

    @Test func deltaBetweenIdenticalPacksHoldsNothingAndRemovesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let files = PackFixture.mixedFiles()
            let first = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v1", manifest: Self.manifest(version: "1.0"), files: files))
            let second = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v1b", manifest: Self.manifest(version: "1.0"), files: files))
            _ = try BundleWriter().writeDelta(from: first, to: second, at: dir + "/delta.zip")
            let report = try await DeltaApplier.apply(
                delta: dir + "/delta.zip", oldContents: dir + "/v1/Contents", newContents: dir + "/v1b/Contents",
                work: dir + "/applied")
            #expect(report.entries.isEmpty)
            #expect(report.removed.isEmpty)
            #expect(report.info["BaseContentVersion"] == .string("1.0"))
            let unzip = try await ExternalTools.unzipTest(dir + "/delta.zip")
            #expect(unzip.status == 0, "\(unzip.combined)")
        }
    }

    @Test func deltaBytesAreDeterministic() async throws {
        try await withTemporaryDirectory { dir in
            let (oldFiles, newFiles) = Self.versions()
            func write(_ name: String, time: Int, reversed: Bool, parallelism: Int) throws -> (BundleRecord, Data) {
                let old = try PackReader.read(
                    directory: PackFixture.write(
                        at: "\(dir)/\(name)/v1", manifest: Self.manifest(version: "1.0"),
                        files: reversed ? oldFiles.reversed() : oldFiles, modificationTime: time))
                let new = try PackReader.read(
                    directory: PackFixture.write(
                        at: "\(dir)/\(name)/v2", manifest: Self.manifest(version: "2.0"),
                        files: reversed ? newFiles.reversed() : newFiles, modificationTime: time + 1))
                let path = "\(dir)/\(name).zip"
                let record = try BundleWriter(parallelism: parallelism).writeDelta(from: old, to: new, at: path)
                return (record, try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            let first = try write("one", time: 1_600_000_000, reversed: false, parallelism: 1)
            let second = try write("two", time: 1_700_000_000, reversed: true, parallelism: 3)
            #expect(first.0 == second.0)
            #expect(first.1 == second.1)
        }
    }

    @Test func baseChangedAfterReadingIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (oldFiles, newFiles) = Self.versions()
            let old = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v1", manifest: Self.manifest(version: "1.0"), files: oldFiles))
            let new = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v2", manifest: Self.manifest(version: "2.0"), files: newFiles))
            try Data("grown and changed\n".utf8).write(to: URL(fileURLWithPath: dir + "/v1/Contents/keep.txt"))
            #expect(throws: PackError(.packChanged, "Contents/keep.txt changed after the pack was read")) {
                try BundleWriter().writeDelta(from: old, to: new, at: dir + "/delta.zip")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/delta.zip"))
        }
    }

    @Test func storeCachesDeltasLikeBundles() async throws {
        try await withTemporaryDirectory { dir in
            let (oldFiles, newFiles) = Self.versions()
            let old = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v1", manifest: Self.manifest(version: "1.0"), files: oldFiles))
            let new = try PackReader.read(
                directory: PackFixture.write(at: dir + "/v2", manifest: Self.manifest(version: "2.0"), files: newFiles))
            let store = try LocalBundleStore(root: dir + "/bundles")
            let records = try await withThrowingTaskGroup(of: BundleRecord.self) { group in
                for _ in 0..<4 { group.addTask { try await store.buildDelta(from: old, to: new) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(records.map(\.digest)).count == 1)
            #expect(await store.completedBuildCount == 1)
            let delta = records[0]
            let path = try #require(store.path(for: delta.digest))
            let direct = try BundleWriter().writeDelta(from: old, to: new, at: dir + "/direct.zip")
            #expect(direct == delta)

            // The full bundle and the reverse delta are other bundles; a reopened store rebuilds nothing.
            let full = try await store.build(new)
            let reverse = try await store.buildDelta(from: new, to: old)
            #expect(Set([delta.digest, full.digest, reverse.digest]).count == 3)
            let reopened = try LocalBundleStore(root: dir + "/bundles")
            #expect(try await reopened.buildDelta(from: old, to: new) == delta)
            #expect(await reopened.completedBuildCount == 0)
            #expect(reopened.path(for: delta.digest) == path)

            let other = Pack(
                directory: dir + "/v2",
                manifest: PackManifest(productId: "com.example.other", version: "3.0", publishedAt: 0),
                files: new.files)
            await #expect {
                try await store.buildDelta(from: old, to: other)
            } throws: { error in
                (error as? PackError)?.code == .deltaMismatch
            }
        }
    }
}
