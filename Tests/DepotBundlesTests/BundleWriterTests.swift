import DepotCore
import Crypto
import DepotTestSupport
import Foundation
import Testing

@testable import DepotBundles

@Suite struct BundleWriterTests {
    private func sha256(ofFile path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return SHA256.hash(data: data).map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }.joined()
    }

    @Test func sameFilesGiveSameBytesWhateverTheirTimesAndOrder() async throws {
        try await withTemporaryDirectory { dir in
            let files = PackFixture.mixedFiles()
            let first = try PackFixture.write(
                at: dir + "/one/level1", files: files, modificationTime: 1_600_000_000, mode: 0o644
            )
            let second = try PackFixture.write(
                at: dir + "/elsewhere/deeper/copy", files: files.reversed(), modificationTime: 1_700_000_000,
                mode: 0o600
            )
            let firstRecord = try BundleWriter().write(PackReader.read(directory: first), to: dir + "/one.zip")
            let secondRecord = try BundleWriter().write(PackReader.read(directory: second), to: dir + "/two.zip")
            #expect(firstRecord == secondRecord)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/one.zip"))
                    == Data(contentsOf: URL(fileURLWithPath: dir + "/two.zip")))
            #expect(try sha256(ofFile: dir + "/one.zip") == firstRecord.digest.hex)
            #expect(firstRecord.size == Int64(try Data(contentsOf: URL(fileURLWithPath: dir + "/one.zip")).count))
        }
    }

    /// Pins the bytes of a stored-only bundle (no zlib involved): a change here is a format change and
    /// must come with a new `BundleWriter.formatVersion`.
    @Test func storedBundleBytesArePinned() async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackReader.read(
                directory: PackFixture.write(
                    at: dir + "/pack",
                    files: [("b.txt", Array("bee\n".utf8)), ("a/z.txt", Array("zed\n".utf8)), ("a.txt", [])]
                ))
            let record = try BundleWriter(compressionLevel: 0).write(pack, to: dir + "/stored.zip")
            #expect(
                record
                    == BundleRecord(
                        digest: .parsed("1d434840ac27754ce6b74829f780cd829fc29ece72ab99490ffb2a5b2add425d"), size: 994
                    ))
            let report = try await ExternalTools.pythonCheck(zip: dir + "/stored.zip", contents: dir + "/pack/Contents")
            #expect(report.deflated.isEmpty)
        }
    }

    @Test func realReadersAcceptStoredAndDeflatedEntries() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/level1", files: PackFixture.mixedFiles())
            let record = try BundleWriter().write(PackReader.read(directory: packDirectory), to: dir + "/b.zip")
            #expect(record.digest.hex.count == 64)

            let unzip = try await ExternalTools.unzipTest(dir + "/b.zip")
            #expect(unzip.status == 0, "\(unzip.combined)")
            #expect(unzip.combined.contains("No errors detected"))

            let report = try await ExternalTools.pythonCheck(zip: dir + "/b.zip", contents: packDirectory + "/Contents")
            #expect(report.count == 7)
            // Noise does not compress; tiny files grow when deflated; an empty file has nothing to compress.
            #expect(
                Set(report.stored) == [
                    "Contents/media/noise.bin", "Contents/empty.dat", "Contents/levels/small.txt",
                    "Contents/Ünïcödé/naïve café.txt",
                ])
            #expect(report.deflated.contains("Contents/levels/level1.json"))
            #expect(report.deflated.contains("Contents/media/big-text.txt"))
            #expect(report.deflated.contains("ContentInfo.plist"))
            #expect(report.info["IAPProductIdentifier"] == .string("com.example.game.level1"))
            #expect(report.info["ContentIdentifier"] == .string("com.example.game.level1"))
            #expect(report.info["ContentVersion"] == .string("1.0"))
            #expect(report.info["PublishedAt"] == .string("2026-03-01T09:00:00Z"))
        }
    }

    @Test func entryThatDoesNotShrinkIsRewrittenStoredWithTheSameBytes() async throws {
        try await withTemporaryDirectory { dir in
            var random = SeededBytes(seed: 9)
            // 3 MiB of noise spans several output buffers, so the cut-back crosses flushed data.
            let files = [
                ("noise.bin", random.bytes(3 << 20)), ("tiny.txt", Array("x".utf8)),
                ("text.txt", TestData.text(count: 100_000, seed: 3)),
            ]
            let pack = try PackReader.read(directory: PackFixture.write(at: dir + "/pack", files: files))
            let standard = try BundleWriter().write(pack, to: dir + "/standard.zip")
            // Always try deflating: the noise is deflated in full, found not to shrink, and rewritten stored.
            let eager = CompressionPolicy(probeSize: 64 << 10, storeRatio: 100)
            let tried = try BundleWriter(compressionLevel: 6, policy: eager).write(pack, to: dir + "/tried.zip")
            #expect(standard == tried)
            let report = try await ExternalTools.pythonCheck(zip: dir + "/tried.zip", contents: dir + "/pack/Contents")
            #expect(Set(report.stored) == ["Contents/noise.bin", "Contents/tiny.txt"])
        }
    }

    @Test func contentInfoEscapesAndSortsKeys() throws {
        let manifest = PackManifest(
            productId: "com.example.a&b", contentId: "issue<9>", version: "1.0", publishedAt: 0
        )
        let pack = Pack(
            directory: "/nowhere", manifest: manifest,
            files: [
                PackFile(relativePath: "a", size: 5), PackFile(relativePath: "b", size: 7),
            ])
        let text = String(decoding: ContentInfo(pack: pack).propertyList, as: UTF8.self)
        #expect(text.contains("<string>com.example.a&amp;b</string>"))
        #expect(text.contains("<string>issue&lt;9&gt;</string>"))
        #expect(text.contains("<key>UnpackedSize</key>\n\t<integer>12</integer>"))
        #expect(text.contains("<key>FileCount</key>\n\t<integer>2</integer>"))
        #expect(text.contains("<string>1970-01-01T00:00:00Z</string>"))
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }
        #expect(keys == keys.sorted())
        #expect(keys.count == 6)
    }

    @Test func fileChangedAfterReadingIsRefusedAndNothingIsLeft() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let pack = try PackReader.read(directory: packDirectory)
            let handle = try FileHandle(
                forWritingTo: URL(fileURLWithPath: packDirectory + "/Contents/levels/small.txt"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("more".utf8))
            try handle.close()
            #expect(throws: PackError(.packChanged, "Contents/levels/small.txt changed after the pack was read")) {
                try BundleWriter().write(pack, to: dir + "/b.zip")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/b.zip"))
        }
    }

    @Test func fileSwappedForALinkAfterReadingIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let packDirectory = try PackFixture.write(at: dir + "/pack", files: PackFixture.mixedFiles())
            let pack = try PackReader.read(directory: packDirectory)
            try FileManager.default.removeItem(atPath: packDirectory + "/Contents/media")
            try FileManager.default.createSymbolicLink(
                atPath: packDirectory + "/Contents/media", withDestinationPath: "/etc")
            #expect(throws: PackError.self) {
                try BundleWriter().write(pack, to: dir + "/b.zip")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/b.zip"))
        }
    }

    @Test func refusesToOverwriteAnExistingFile() async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackReader.read(directory: PackFixture.write(at: dir + "/pack", files: [("a", [1])]))
            try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/b.zip"))
            #expect(throws: BundleStoreError.self) { try BundleWriter().write(pack, to: dir + "/b.zip") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/b.zip")) == Data("keep".utf8))
        }
    }
}
