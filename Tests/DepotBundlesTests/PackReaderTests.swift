import DepotTestSupport
import Foundation
import Testing

@testable import DepotBundles

@Suite struct PackReaderTests {
    @Test func readsAPack() async throws {
        try await withTemporaryDirectory { dir in
            let pack = try PackReader.read(
                directory: PackFixture.write(at: dir + "/level1", files: PackFixture.mixedFiles()),
                limits: .default
            )
            #expect(pack.manifest.productId == "com.example.game.level1")
            #expect(pack.manifest.title == "Level 1")
            #expect(
                pack.files.map(\.relativePath) == [
                    "empty.dat", "levels/level1.json", "levels/small.txt", "media/big-text.txt", "media/noise.bin",
                    "Ünïcödé/naïve café.txt",
                ])
            #expect(pack.unpackedSize == PackFixture.mixedFiles().reduce(0) { $0 + Int64($1.1.count) })
            #expect(pack.files.allSatisfy { $0.modificationTime != nil })
        }
    }

    @Test func discoversPacksWithoutDescendingIntoThem() async throws {
        try await withTemporaryDirectory { dir in
            let files = [("a.txt", Array("a".utf8))]
            try PackFixture.write(at: dir + "/content/game/level1", files: files)
            try PackFixture.write(at: dir + "/content/game/level2", files: files)
            try PackFixture.write(at: dir + "/content/magazine/2026-09", files: files)
            // Inside a pack, a nested pack.json is content, not another pack.
            try PackFixture.write(at: dir + "/content/game/level1/Contents/inner", files: files)
            try PackFixture.write(at: dir + "/content/.git/hidden", files: files)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/content/linked", withDestinationPath: dir + "/content/game/level2"
            )
            #expect(
                try PackReader.discover(root: dir + "/content/") == [
                    dir + "/content/game/level1", dir + "/content/game/level2", dir + "/content/magazine/2026-09",
                ])
        }
    }

    // MARK: Hostile packs

    /// Reads a pack that must be refused with `code`, naming `entry`, through the store; then checks that
    /// the store holds nothing.
    private func expectRefused(
        _ code: PackError.Code, naming entry: String, limits: PackLimits = .default, test: String = #function,
        setUp: (String) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory(test) { dir in
            let packDirectory = dir + "/pack"
            try FileManager.default.createDirectory(atPath: packDirectory, withIntermediateDirectories: true)
            try await setUp(packDirectory)
            let store = try LocalBundleStore(root: dir + "/bundles")
            await #expect {
                _ = try await store.importPack(directory: packDirectory, limits: limits)
            } throws: { error in
                guard let error = error as? PackError else { return false }
                #expect(error.code == code)
                #expect(error.message.contains(entry), "\(error.message) does not name \(entry)")
                #expect(!error.message.contains(dir), "\(error.message) echoes a server path")
                return true
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/bundles") == ["tmp"])
            #expect(partialFiles(under: dir + "/bundles/tmp") == [])
        }
    }

    private let ok: [(String, [UInt8])] = [("ok.txt", Array("fine".utf8))]

    @Test func refusesSymbolicLinkToFile() async throws {
        try await expectRefused(.symlink, naming: "Contents/images/passwd") { pack in
            try PackFixture.write(at: pack, files: ok + [("images/a.png", [1, 2, 3])])
            try FileManager.default.createSymbolicLink(
                atPath: pack + "/Contents/images/passwd", withDestinationPath: "/etc/passwd"
            )
        }
    }

    @Test func refusesSymbolicLinkToDirectory() async throws {
        try await expectRefused(.symlink, naming: "Contents/etc") { pack in
            try PackFixture.write(at: pack, files: ok)
            try FileManager.default.createSymbolicLink(atPath: pack + "/Contents/etc", withDestinationPath: "/etc")
        }
    }

    @Test func refusesSymbolicLinkedManifest() async throws {
        try await expectRefused(.symlink, naming: "pack.json") { pack in
            try PackFixture.write(at: pack, files: ok)
            try FileManager.default.removeItem(atPath: pack + "/pack.json")
            try Data(PackFixture.manifest.utf8).write(to: URL(fileURLWithPath: pack + "/../real.json"))
            try FileManager.default.createSymbolicLink(atPath: pack + "/pack.json", withDestinationPath: "../real.json")
        }
    }

    @Test func refusesFIFO() async throws {
        try await expectRefused(.specialFile, naming: "Contents/pipe") { pack in
            try PackFixture.write(at: pack, files: ok)
            #expect(mkfifo(pack + "/Contents/pipe", 0o644) == 0)
        }
    }

    @Test func refusesSocket() async throws {
        try await expectRefused(.specialFile, naming: "Contents/sock") { pack in
            try PackFixture.write(at: pack, files: ok)
            let result = try await ExternalTool.run(
                "/usr/bin/env",
                [
                    "python3", "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
                    pack + "/Contents/sock",
                ]
            )
            #expect(result.status == 0)
        }
    }

    @Test func refusesNameThatIsNotUTF8() async throws {
        try await expectRefused(.badName, naming: "Contents/bad") { pack in
            try PackFixture.write(at: pack, files: ok)
            let name: [UInt8] = Array((pack + "/Contents/bad").utf8) + [0xFF, 0xFE, 0x00]
            let fd = name.withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
            }
            #expect(fd >= 0)
            close(fd)
        }
    }

    @Test func refusesBackslashInName() async throws {
        try await expectRefused(.unsafePath, naming: #"Contents/dir/a\b.txt"#) { pack in
            try PackFixture.write(at: pack, files: ok + [(#"dir/a\b.txt"#, [1])])
        }
    }

    @Test func refusesControlCharacterInName() async throws {
        try await expectRefused(.badName, naming: "Contents/a\\nb.txt") { pack in
            try PackFixture.write(at: pack, files: ok + [("a\nb.txt", [1])])
        }
    }

    @Test func refusesCaseCollision() async throws {
        try await expectRefused(.caseCollision, naming: "Contents/docs/A.txt and Contents/docs/a.txt") { pack in
            try PackFixture.write(at: pack, files: ok + [("docs/a.txt", [1]), ("docs/A.txt", [2])])
        }
    }

    @Test func refusesCaseCollisionBetweenDirectoryAndFile() async throws {
        try await expectRefused(.caseCollision, naming: "Contents/Images") { pack in
            try PackFixture.write(at: pack, files: ok + [("images/a.png", [1]), ("Images", [2])])
        }
    }

    @Test func refusesNormalizationCollision() async throws {
        try await expectRefused(.caseCollision, naming: "Contents/caf") { pack in
            try PackFixture.write(at: pack, files: ok + [("caf\u{E9}.txt", [1]), ("cafe\u{301}.txt", [2])])
        }
    }

    @Test func refusesEmptyPack() async throws {
        try await expectRefused(.emptyPack, naming: "Contents/") { pack in
            try PackFixture.write(at: pack, files: [])
            try FileManager.default.createDirectory(
                atPath: pack + "/Contents/empty/dirs", withIntermediateDirectories: true)
        }
    }

    @Test func refusesPackWithoutContents() async throws {
        try await expectRefused(.emptyPack, naming: "Contents/") { pack in
            try Data(PackFixture.manifest.utf8).write(to: URL(fileURLWithPath: pack + "/pack.json"))
        }
    }

    @Test func refusesUnexpectedEntryAtRoot() async throws {
        try await expectRefused(.unexpectedEntry, naming: "README.txt") { pack in
            try PackFixture.write(at: pack, files: ok)
            try Data("hi".utf8).write(to: URL(fileURLWithPath: pack + "/README.txt"))
        }
    }

    @Test func refusesMissingManifest() async throws {
        try await expectRefused(.badManifest, naming: "pack.json") { pack in
            try PackFixture.write(at: pack, files: ok)
            try FileManager.default.removeItem(atPath: pack + "/pack.json")
        }
    }

    @Test func refusesInvalidManifestJSON() async throws {
        try await expectRefused(.badManifest, naming: "pack.json") { pack in
            try PackFixture.write(at: pack, manifest: "{\"productId\": ", files: ok)
        }
    }

    @Test func refusesManifestMissingField() async throws {
        try await expectRefused(.badManifest, naming: "version") { pack in
            try PackFixture.write(
                at: pack, manifest: #"{"productId": "p", "publishedAt": "2026-03-01T09:00:00Z"}"#, files: ok)
        }
    }

    @Test func refusesManifestBadDate() async throws {
        try await expectRefused(.badManifest, naming: "publishedAt") { pack in
            try PackFixture.write(
                at: pack, manifest: #"{"productId": "p", "version": "1", "publishedAt": "March 1st"}"#, files: ok)
        }
    }

    @Test func refusesTooManyFiles() async throws {
        let limits = PackLimits(maxFileCount: 3, maxFileSize: 1 << 20, maxTotalSize: 1 << 30)
        try await expectRefused(.tooManyFiles, naming: "Contents/", limits: limits) { pack in
            try PackFixture.write(at: pack, files: (0..<4).map { ("f\($0).txt", [UInt8($0)]) })
        }
    }

    @Test func refusesFileTooLarge() async throws {
        let limits = PackLimits(maxFileCount: 10, maxFileSize: 1000, maxTotalSize: 1 << 30)
        try await expectRefused(.fileTooLarge, naming: "Contents/big.bin", limits: limits) { pack in
            try PackFixture.write(at: pack, files: ok + [("big.bin", [UInt8](repeating: 1, count: 1001))])
        }
    }

    @Test func refusesPackTooLarge() async throws {
        let limits = PackLimits(maxFileCount: 10, maxFileSize: 1000, maxTotalSize: 2500)
        try await expectRefused(.packTooLarge, naming: "Contents/c.bin", limits: limits) { pack in
            try PackFixture.write(
                at: pack, files: ["a", "b", "c"].map { ("\($0).bin", [UInt8](repeating: 1, count: 900)) })
        }
    }

    @Test func refusesSymbolicLinkedPackDirectory() async throws {
        try await withTemporaryDirectory { dir in
            try PackFixture.write(at: dir + "/real", files: ok)
            try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
            #expect(throws: PackError(.symlink, "the pack directory is a symbolic link")) {
                try PackReader.read(directory: dir + "/link", limits: .default)
            }
        }
    }
}
