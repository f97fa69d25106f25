@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotServices
import DepotTestSupport
import Foundation
import Logging
import Testing

/// Files no version or delta refers to are removed once they stayed unreferenced for the grace period: a
/// staged version that was deleted frees its bundle and its pack copy; what the catalog refers to, and what
/// is not a content-addressed file, stays.
@Suite("Unreferenced files are collected")
struct StorageCollectorTests {
    static let level1 = "com.example.level1"

    @Test func aDeletedVersionsFilesGoAfterTheGracePeriod() async throws {
        try await LiveServer.with { server in
            let data = server.scratch.path + "/data"
            let application = server.application
            let original = try server.version(Self.level1)
            var random = SeededBytes(seed: 7)
            let directory = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/level1-1.4", productId: Self.level1, version: "1.4",
                files: ["media/new.bin": random.bytes(100_000)])
            let staged = try await application.stager.stage(directory: directory, .init(productId: Self.level1, version: "1.4"))
            let digest = staged.content.digest.hex
            let bundle = data + "/bundles/\(digest.prefix(2))/\(digest).zip"
            let pack = data + "/packs/\(digest)"
            #expect(FileManager.default.fileExists(atPath: bundle))
            #expect(FileManager.default.fileExists(atPath: pack + "/pack.json"))
            // Not a content-addressed name: never collected.
            try "x".write(toFile: data + "/packs/notes.txt", atomically: true, encoding: .utf8)

            let clock = TestClock()
            let collector = StorageCollector(
                ledger: application.ledger, bundlesRoot: data + "/bundles", packsRoot: data + "/packs", graceSeconds: 3_600,
                intervalSeconds: 3_600, clock: { clock.now() }, logger: Logger(label: "depot-test"))

            // Referenced while staged: nothing goes, however late.
            clock.advance(by: 10 * 3_600)
            #expect(await collector.collectOnce() == StorageCollector.Pass())

            _ = try await application.ledger.deleteVersion(productId: Self.level1, contentId: Self.level1, version: "1.4")
            // Found unreferenced now: it stays for the grace period.
            #expect(await collector.collectOnce() == StorageCollector.Pass())
            clock.advance(by: 3_599)
            #expect(await collector.collectOnce() == StorageCollector.Pass())
            #expect(FileManager.default.fileExists(atPath: bundle))
            clock.advance(by: 1)
            let pass = await collector.collectOnce()
            #expect(pass.bundles == [digest])
            #expect(pass.packs == [digest])
            #expect(pass.bytes > 100_000)
            #expect(!FileManager.default.fileExists(atPath: bundle))
            #expect(!FileManager.default.fileExists(atPath: pack))

            // The published version's bundle, and the file that is no digest, stay.
            let kept = data + "/bundles/\(original.digest.hex.prefix(2))/\(original.digest).zip"
            #expect(FileManager.default.fileExists(atPath: kept))
            #expect(FileManager.default.fileExists(atPath: data + "/packs/notes.txt"))
            clock.advance(by: 10 * 3_600)
            #expect(await collector.collectOnce() == StorageCollector.Pass())
        }
    }
}
