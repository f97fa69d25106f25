@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// No `pack.json` to write: `depot publish DIR --product P --version V --publish` takes a folder of plain files (the
/// folder is the content) or a folder with `Contents/` and no `pack.json`; the version's content id is the product's,
/// its publication the moment it was staged. A `pack.json` that disagrees with the command is
/// refused, naming what disagrees.
@Suite("depot publish without pack.json")
struct PublishPlainFolderTests {
    static let product = "com.example.atlas"

    @Test func aFolderOfPlainFilesIsPublishedAsTheProductsContent() async throws {
        let binary = DepotProcess.debugBinary(filePath: #filePath)
        try await UploadServer.with(engine: .sqlite) { server in
            try await server.createProduct(Self.product, title: "Atlas of the North")
            func publish(_ folder: String, _ version: String) async throws -> RunningProcess {
                let run = try RunningProcess(
                    binary,
                    [
                        "publish", folder, "--product", Self.product, "--version", version, "--server",
                        "http://127.0.0.1:\(server.port)", "--key", UploadServer.token, "--state-dir", server.scratch.path + "/state",
                        "--publish",
                    ])
                _ = try await run.exitStatus()
                return run
            }

            // Plain files: the folder itself is the content.
            var random = SeededBytes(seed: 31)
            let map = random.bytes(100_000)
            try server.scratch.write("plain/maps/north.bin", map)
            try server.scratch.write("plain/readme.txt", Array("North.".utf8))
            let before = DepotApplication.systemClock()
            let first = try await publish(server.scratch.path + "/plain", "1.0")
            #expect(first.text.contains("published \(Self.product) 1.0"), "\(first.text)")
            let version = try #require(
                try await server.application.ledger.catalogVersions(productId: Self.product).first { $0.content.version == "1.0" })
            #expect(version.content.contentId == Self.product)
            #expect(version.content.publishedAt >= before && version.content.publishedAt <= DepotApplication.systemClock())
            // The bundle holds the files under Contents/, and the product and version in its ContentInfo.plist.
            let bundle = try server.server.bundleBytes(version.content.digest.hex)
            let listing = try await Self.zipListing(bundle, scratch: server.scratch)
            #expect(listing.contains("Contents/maps/north.bin") && listing.contains("Contents/readme.txt"), "\(listing)")
            #expect(!listing.contains("pack.json"), "\(listing)")
            let plist = try await Self.zipEntry(bundle, "ContentInfo.plist", scratch: server.scratch)
            #expect(plist.contains(Self.product) && plist.contains("<string>1.0</string>"), "\(plist)")

            // Contents/ without pack.json.
            try server.scratch.write("bare/Contents/maps/north.bin", random.bytes(1000))
            let second = try await publish(server.scratch.path + "/bare", "1.1")
            #expect(second.text.contains("published \(Self.product) 1.1"), "\(second.text)")

            // A pack.json that disagrees with the command is refused, naming the field.
            try server.scratch.write(
                "disagreeing/pack.json",
                #"{"productId": "com.example.other", "version": "1.2", "publishedAt": "2026-03-01T09:00:00Z"}"#)
            try server.scratch.write("disagreeing/Contents/a.txt", Array("a".utf8))
            let third = try await publish(server.scratch.path + "/disagreeing", "1.2")
            #expect(third.text.contains("com.example.other"), "\(third.text)")
            #expect(!third.text.contains("published"), "\(third.text)")
            let versions = try await server.application.ledger.catalogVersions(productId: Self.product).map(\.content.version)
            #expect(versions.sorted() == ["1.0", "1.1"])
        }
    }

    /// One entry of a zip archive as text, as Python's zipfile reads it.
    static func zipEntry(_ bytes: [UInt8], _ name: String, scratch: ScratchDirectory) async throws -> String {
        try scratch.write("entry.zip", bytes)
        let python = try #require(ExternalTool.require("python3"))
        let read = try await ExternalTool.run(
            python,
            [
                "-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())", scratch.path + "/entry.zip",
                name,
            ])
        #expect(read.status == 0, "\(read.error)")
        return read.output
    }

    /// The names in a zip archive, as Python's zipfile lists them.
    static func zipListing(_ bytes: [UInt8], scratch: ScratchDirectory) async throws -> String {
        try scratch.write("listing.zip", bytes)
        let python = try #require(ExternalTool.require("python3"))
        let listed = try await ExternalTool.run(
            python,
            ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", scratch.path + "/listing.zip"])
        #expect(listed.status == 0, "\(listed.error)")
        return listed.output
    }
}
