@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import Foundation
import Testing

/// What the content import refuses.
@Suite("Catalog import")
struct CatalogImportTests {
    @Test func aContentIdIsOwnedByOneProduct() async throws {
        let cheap = LiveServer.PackSpec(
            directory: "cheap/shared", productId: "com.example.level1", contentId: "com.example.shared",
            files: ["a.txt": Array("cheap".utf8)])
        let premium = LiveServer.PackSpec(
            directory: "premium/shared", productId: "com.example.premium", contentId: "com.example.shared",
            files: ["a.txt": Array("premium".utf8)])
        try await LiveServer.with(packs: [cheap, premium]) { server in
            let shared = server.application.catalog.versions.filter { $0.contentId == "com.example.shared" }
            #expect(shared.map(\.productId) == ["com.example.level1"])
            // The premium product delivers nothing, and an app claiming the shared content installed gets no delta of it.
            #expect(server.application.catalog.currentContents(of: "com.example.premium", at: Int64(Date().timeIntervalSince1970)).isEmpty)
            #expect(server.application.catalog.deltas.isEmpty)
        }
    }

    @Test func contentIdsThatAreNoIdentifiersAreRefusedWithTheirReason() async throws {
        let unsafe = LiveServer.PackSpec(
            directory: "unsafe/pack", productId: "com.example.level1", contentId: "../x y/Contents", files: ["a.txt": [1]])
        let hidden = LiveServer.PackSpec(
            directory: "hidden/pack", productId: "com.example.premium", contentId: ".premium", files: ["a.txt": [2]])
        try await LiveServer.with(packs: [unsafe, hidden]) { server in
            #expect(server.application.catalog.versions.isEmpty)
            let refused = server.application.refusedPacks
            #expect(refused.count == 2, "\(refused)")
            for (pack, key) in [("unsafe/pack", "contentId"), ("hidden/pack", "contentId")] {
                #expect(
                    refused.contains { $0.contains(pack) && $0.contains("\"\(key)\" must be 1-128 ASCII letters") }, "\(refused)")
            }
        }
    }
}
