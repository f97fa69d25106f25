@testable import DepotServerTestSupport
import DepotClient
import Foundation
import Testing

/// A delta bundle applied by DepotClient over the installed version gives exactly the new version.
@Suite("DepotClient applies deltas")
struct ClientDeltaTests {
    @Test func aDeltaOverTheInstalledVersionGivesExactlyTheNewFiles() async throws {
        let packs = LiveServer.PackSpec.levelOneDeltaPair
        try await LiveServer.with(packs: packs) { server in
            let out = server.scratch.path + "/out"
            // Version 1.0 installed, as an earlier delivery left it.
            try server.scratch.write(
                "out/com.example.level1/ContentInfo.plist",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>ContentIdentifier</key><string>com.example.level1</string>
                <key>ContentVersion</key><string>1.0</string></dict></plist>
                """)
            for (path, bytes) in packs[0].files { try server.scratch.write("out/com.example.level1/Contents/" + path, bytes) }

            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let client = ClientTestSupport.client(port: server.port)
            let delivery = try await client.delivery(
                of: jws, into: URL(fileURLWithPath: out), installed: [InstalledContent(contentId: "com.example.level1", version: "1.0")])
            let offered = try #require(delivery.downloads.first?.download)
            #expect(offered.baseVersion == "1.0")
            #expect(offered.version == "1.1")
            let outcome = try await delivery.run()

            #expect(outcome.finishStoreKitTransaction)
            #expect(outcome.installed.map(\.version) == ["1.1"])
            let folder = out + "/com.example.level1"
            #expect(try ClientTestSupport.contents(of: folder) == packs[1].files)
            #expect(try ClientTestSupport.directories(of: folder) == ClientTestSupport.parents(of: packs[1].files.keys))
            let info = try #require(
                try PropertyListSerialization.propertyList(
                    from: Data(contentsOf: URL(fileURLWithPath: folder + "/ContentInfo.plist")), format: nil) as? [String: Any])
            #expect(info["ContentVersion"] as? String == "1.1")
            #expect(info["RemovedPaths"] == nil)
            #expect(ClientTestSupport.names(in: out) == ["com.example.level1"])
        }
    }

    @Test func aDeltaOverAnotherInstalledVersionIsRefusedAndTheInstalledOneKept() async throws {
        let packs = LiveServer.PackSpec.levelOneDeltaPair
        try await LiveServer.with(packs: packs) { server in
            let out = server.scratch.path + "/out"
            try server.scratch.write(
                "out/com.example.level1/ContentInfo.plist",
                "<plist version=\"1.0\"><dict><key>ContentVersion</key><string>0.9</string></dict></plist>")
            try server.scratch.write("out/com.example.level1/Contents/old.txt", "kept")
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let delivery = try await ClientTestSupport.client(port: server.port).delivery(
                of: jws, into: URL(fileURLWithPath: out), installed: [InstalledContent(contentId: "com.example.level1", version: "1.0")])
            let error = await #expect(throws: DepotClientError.self) { try await delivery.run() }
            #expect(error?.code == .bundleMismatch)
            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == ["old.txt": Array("kept".utf8)])
            #expect(ClientTestSupport.names(in: out) == ["com.example.level1"])
        }
    }
}

/// What a kill during an install leaves is tidied by the next one.
@Suite("DepotClient recovers interrupted installs")
struct ClientInstallRecoveryTests {
    @Test func aVersionMovedAsideBeforeTheKillIsPutBackAndScratchFoldersRemoved() async throws {
        let packs = LiveServer.PackSpec.levelOneDeltaPair
        try await LiveServer.with(packs: packs) { server in
            let out = server.scratch.path + "/out"
            // Killed between the two renames: 1.0 moved aside, nothing at the destination; and a half unpack.
            let aside = "out/.com.example.level1.replaced-0123abcd"
            try server.scratch.write(
                aside + "/ContentInfo.plist",
                "<plist version=\"1.0\"><dict><key>ContentVersion</key><string>1.0</string></dict></plist>")
            for (path, bytes) in packs[0].files { try server.scratch.write(aside + "/Contents/" + path, bytes) }
            try server.scratch.write("out/.com.example.level1.unpack-89abcdef/Contents/half.bin", [1, 2, 3])

            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let delivery = try await ClientTestSupport.client(port: server.port).delivery(
                of: jws, into: URL(fileURLWithPath: out), installed: [InstalledContent(contentId: "com.example.level1", version: "1.0")])
            #expect(delivery.downloads.first?.download.baseVersion == "1.0")
            _ = try await delivery.run()

            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == packs[1].files)
            #expect(ClientTestSupport.names(in: out) == ["com.example.level1"])
        }
    }
}
